"""The openai-compatible adapter against a local server speaking the real Chat Completions wire format
(recorded responses, tests/support/openai_stub.py): text, parallel tool calls, usage, and errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.models.openai import OpenAICompatibleModel, SecretsManagerKeys, StaticKey
from mneme.errors import ModelRequestRejected, ModelThrottled, ModelUnavailable
from mneme.models.run import Usage
from tests.support.openai_stub import (
    ERROR_401,
    ERROR_429,
    ERROR_500,
    PARALLEL_TOOL_CALLS,
    TEXT,
    TEXT_CACHED,
    StubServer,
    openai_stub,
)

KEY = "sk-test-0123456789abcdefzzzz"
WEATHER = {
    "toolSpec": {
        "name": "get_n_day_weather_forecast",
        "description": "Get an N-day weather forecast",
        "inputSchema": {"json": {"type": "object", "properties": {"location": {"type": "string"}}}},
    }
}
REQUEST: dict[str, Any] = {
    "modelId": "gpt-4o",
    "system": [{"text": "Don't make assumptions."}, {"cachePoint": {"type": "default"}}],
    "messages": [{"role": "user", "content": [{"text": "Weather in San Francisco and Glasgow, 4 days?"}]}],
    "toolConfig": {"tools": [WEATHER, {"cachePoint": {"type": "default"}}]},
    "inferenceConfig": {"maxTokens": 512, "temperature": 0.2},
}


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with openai_stub() as server:
        yield server


def model(stub: StubServer, key: str | None = KEY) -> OpenAICompatibleModel:
    """A client of the loopback stub: local mode's policy (private networks allowed)."""
    return OpenAICompatibleModel(stub.base_url, StaticKey(key), allow_private=True)


def test_a_text_reply_and_the_request_on_the_wire(stub: StubServer) -> None:
    stub.reply(TEXT)
    response = model(stub).converse(REQUEST)
    assert response.text == "Why don't skeletons fight each other? They don't have the guts."
    assert (response.stop_reason, response.tool_uses) == ("end_turn", [])
    assert response.usage == Usage(input_tokens=23, output_tokens=14)
    (sent,) = stub.received
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["model"] == "gpt-4o"
    assert sent.body["messages"] == [
        {"role": "system", "content": "Don't make assumptions."},
        {"role": "user", "content": "Weather in San Francisco and Glasgow, 4 days?"},
    ]
    assert sent.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_n_day_weather_forecast",
                "description": "Get an N-day weather forecast",
                "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
            },
        }
    ]
    assert (sent.body["max_tokens"], sent.body["temperature"]) == (512, 0.2)


def test_cached_prompt_tokens_are_cache_reads(stub: StubServer) -> None:
    stub.reply(TEXT_CACHED)
    usage = model(stub).converse(REQUEST).usage
    assert usage == Usage(input_tokens=86, output_tokens=14, cache_read_tokens=1920)


def test_parallel_tool_calls_become_tool_use_blocks(stub: StubServer) -> None:
    stub.reply(PARALLEL_TOOL_CALLS)
    response = model(stub).converse(REQUEST)
    assert response.stop_reason == "tool_use"
    assert response.tool_uses == [
        {
            "toolUseId": "call_pFdKcCu5taDTtOOfX14vEDRp",
            "name": "get_n_day_weather_forecast",
            "input": {"location": "San Francisco, CA", "format": "fahrenheit", "num_days": 4},
        },
        {
            "toolUseId": "call_Veeyp2hYJOKp0wT7ODxmTjaS",
            "name": "get_n_day_weather_forecast",
            "input": {"location": "Glasgow, UK", "format": "celsius", "num_days": 4},
        },
    ]
    assert response.text == ""


def test_tool_results_go_back_as_tool_messages_after_the_calling_turn(stub: StubServer) -> None:
    stub.reply(TEXT)
    calls = PARALLEL_TOOL_CALLS["choices"][0]["message"]["tool_calls"]
    uses = [
        {"toolUse": {"toolUseId": c["id"], "name": c["function"]["name"], "input": {"n": i}}}
        for i, c in enumerate(calls)
    ]
    results = [
        {"toolResult": {"toolUseId": calls[0]["id"], "content": [{"text": "sunny"}], "status": "success"}},
        {"toolResult": {"toolUseId": calls[1]["id"], "content": [{"text": "Error: no data"}], "status": "error"}},
    ]
    request = {
        **REQUEST,
        "messages": [
            *REQUEST["messages"],
            {"role": "assistant", "content": uses},
            {"role": "user", "content": results},
        ],
    }
    model(stub).converse(request)
    messages = stub.received[0].body["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": calls[0]["id"],
                "type": "function",
                "function": {"name": "get_n_day_weather_forecast", "arguments": '{"n": 0}'},
            },
            {
                "id": calls[1]["id"],
                "type": "function",
                "function": {"name": "get_n_day_weather_forecast", "arguments": '{"n": 1}'},
            },
        ],
    }
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": calls[0]["id"], "content": "sunny"},
        {"role": "tool", "tool_call_id": calls[1]["id"], "content": "Error: no data"},
    ]


def test_401_is_a_rejected_request_that_never_shows_the_key(stub: StubServer) -> None:
    stub.reply((401, ERROR_401))
    with pytest.raises(ModelRequestRejected) as caught:
        model(stub).converse(REQUEST)
    assert "401 invalid_api_key" in caught.value.message
    assert KEY not in caught.value.message and "zzzz" not in caught.value.message
    assert len(stub.received) == 1


def test_429_is_throttling_left_to_the_state_machine_s_retry(stub: StubServer) -> None:
    stub.reply((429, ERROR_429))
    with pytest.raises(ModelThrottled) as caught:
        model(stub).converse(REQUEST)
    assert caught.value.status == 429 and "rate_limit_exceeded" in caught.value.message
    assert len(stub.received) == 1  # not retried here


def test_500_is_retried_once_then_unavailable(stub: StubServer) -> None:
    stub.reply((500, ERROR_500), (500, ERROR_500))
    with pytest.raises(ModelUnavailable) as caught:
        model(stub).converse(REQUEST)
    assert type(caught.value) is ModelUnavailable and "server_error" in caught.value.message
    assert len(stub.received) == 2


def test_a_500_followed_by_a_reply_succeeds(stub: StubServer) -> None:
    stub.reply((500, ERROR_500), TEXT)
    assert model(stub).converse(REQUEST).text.startswith("Why don't skeletons")
    assert len(stub.received) == 2


def test_an_unreachable_endpoint_is_unavailable() -> None:
    with openai_stub() as gone:
        url = gone.base_url
    with pytest.raises(ModelUnavailable):
        OpenAICompatibleModel(url, StaticKey(KEY), allow_private=True).converse(REQUEST)


def test_without_a_key_no_authorization_header_is_sent(stub: StubServer) -> None:
    stub.reply(TEXT)
    model(stub, key=None).converse(REQUEST)
    assert "authorization" not in stub.received[0].headers


# ------------------------------------------------------------------------------ the key from Secrets Manager
@mock_aws
def test_the_key_is_read_from_secrets_manager_once_per_container(stub: StubServer) -> None:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    client = boto3.client("secretsmanager", region_name="us-east-1")
    arn = client.create_secret(Name="mneme/openai", SecretString=json.dumps({"api_key": KEY}))["ARN"]
    reads: list[str] = []
    client.meta.events.register("before-call.secrets-manager.GetSecretValue", lambda **_: reads.append("read"))
    stub.reply(TEXT, TEXT)
    keys = SecretsManagerKeys(SecretsProvider(boto3_client=client), arn)
    openai = OpenAICompatibleModel(stub.base_url, keys, allow_private=True)
    openai.converse(REQUEST)
    openai.converse(REQUEST)
    assert [r.headers["authorization"] for r in stub.received] == [f"Bearer {KEY}"] * 2
    assert reads == ["read"]


@mock_aws
def test_an_unreadable_secret_makes_the_model_unavailable(stub: StubServer) -> None:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    client = boto3.client("secretsmanager", region_name="us-east-1")
    missing = "arn:aws:secretsmanager:us-east-1:123456789012:secret:mneme/none-AbCdEf"
    keys = SecretsManagerKeys(SecretsProvider(boto3_client=client), missing)
    with pytest.raises(ModelUnavailable, match="secret could not be read"):
        OpenAICompatibleModel(stub.base_url, keys, allow_private=True).converse(REQUEST)
    assert stub.received == []
