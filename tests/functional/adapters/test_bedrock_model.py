"""The Bedrock Converse adapter against a real bedrock-runtime client (Stubber validates both shapes).

Note: ``botocore.stub.Stubber`` answers in the ``before-call`` event, i.e. *outside* botocore's retry
loop — each queued response is consumed by one API call, not by one attempt. The retry test therefore
answers at the HTTP level (``before-send``), which runs once per attempt.
"""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import EndpointConnectionError
from botocore.stub import Stubber

from mneme.adapters.aws.timed_calls import Attempts
from mneme.adapters.models.bedrock import BedrockModel, bedrock_client_config
from mneme.errors import ModelRequestRejected, ModelThrottled, ModelTimedOut, ModelUnavailable
from mneme.models.run import Usage
from mneme.ports.models import ModelClient

MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0"

REQUEST: dict[str, Any] = {
    "modelId": MODEL_ID,
    "system": [{"text": "You are helpful."}, {"cachePoint": {"type": "default"}}],
    "messages": [
        {"role": "user", "content": [{"text": "earlier"}]},
        {"role": "assistant", "content": [{"text": "ok"}, {"cachePoint": {"type": "default"}}]},
        {"role": "user", "content": [{"text": "What is the weather in Paris?"}]},
    ],
    "toolConfig": {
        "tools": [
            {
                "toolSpec": {
                    "name": "weather",
                    "description": "Current weather of a city",
                    "inputSchema": {
                        "json": {
                            "type": "object",
                            "properties": {"city": {"type": "string"}},
                            "required": ["city"],
                        }
                    },
                }
            }
        ]
    },
    "inferenceConfig": {"maxTokens": 512, "temperature": 0.2},
}


def converse_response(content: list[dict[str, Any]], stop_reason: str, **usage: int) -> dict[str, Any]:
    usage = {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, **usage}
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason,
        "usage": usage,
        "metrics": {"latencyMs": 42},
    }


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(2))


def test_text_reply_with_the_request_passed_through_unchanged(client: Any) -> None:
    with Stubber(client) as stub:
        stub.add_response("converse", converse_response([{"text": "Hello!"}], "end_turn"), REQUEST)
        response = BedrockModel(client).converse(REQUEST)
        stub.assert_no_pending_responses()
    assert response.text == "Hello!"
    assert response.content == [{"text": "Hello!"}]
    assert response.stop_reason == "end_turn"
    assert response.tool_uses == []
    assert response.usage == Usage(input_tokens=10, output_tokens=5)


def test_tool_use_turn(client: Any) -> None:
    content: list[dict[str, Any]] = [
        {"text": "Let me check."},
        {"toolUse": {"toolUseId": "tooluse_abc123", "name": "weather", "input": {"city": "Paris"}}},
    ]
    with Stubber(client) as stub:
        stub.add_response("converse", converse_response(content, "tool_use"), REQUEST)
        response = BedrockModel(client).converse(REQUEST)
    assert response.stop_reason == "tool_use"
    assert response.tool_uses == [{"toolUseId": "tooluse_abc123", "name": "weather", "input": {"city": "Paris"}}]
    assert response.text == "Let me check."


def test_cache_usage_fields_are_mapped(client: Any) -> None:
    reply = converse_response([{"text": "cached"}], "end_turn", cacheReadInputTokens=1800, cacheWriteInputTokens=300)
    with Stubber(client) as stub:
        stub.add_response("converse", reply, REQUEST)
        response = BedrockModel(client).converse(REQUEST)
    assert response.usage == Usage(input_tokens=10, output_tokens=5, cache_read_tokens=1800, cache_write_tokens=300)


@pytest.mark.parametrize("stop_reason", ["max_tokens", "guardrail_intervened", "model_context_window_exceeded"])
def test_other_stop_reasons_pass_through(client: Any, stop_reason: str) -> None:
    with Stubber(client) as stub:
        stub.add_response("converse", converse_response([{"text": "partial"}], stop_reason), REQUEST)
        response = BedrockModel(client).converse(REQUEST)
    assert response.stop_reason == stop_reason
    assert response.text == "partial"


def test_throttling_is_retried_by_botocore_then_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(2))
    monkeypatch.setattr("botocore.endpoint.time.sleep", lambda _seconds: None)  # no real back-off
    attempts: list[str] = []

    def throttle(request: Any, **_: Any) -> Any:
        attempts.append(request.url)
        body = {"message": "Too many requests, please wait before trying again."}
        return http_response(request.url, 429, body, {"x-amzn-ErrorType": "ThrottlingException"})

    client.meta.events.register("before-send.bedrock-runtime.Converse", throttle)
    with pytest.raises(ModelThrottled) as caught:
        BedrockModel(client).converse(REQUEST)
    assert len(attempts) == 2  # max_attempts=2: the first call and one retry
    assert caught.value.status == 429
    assert "Too many requests" in caught.value.message
    assert caught.value.__cause__.response["ResponseMetadata"]["RetryAttempts"] == 1  # type: ignore[union-attr]


def test_a_throttle_followed_by_success_is_retried_transparently(monkeypatch: pytest.MonkeyPatch) -> None:
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(2))
    monkeypatch.setattr("botocore.endpoint.time.sleep", lambda _seconds: None)
    replies: list[tuple[int, dict[str, str], dict[str, Any]]] = [
        (429, {"x-amzn-ErrorType": "ThrottlingException"}, {"message": "slow down"}),
        (200, {}, converse_response([{"text": "after retry"}], "end_turn")),
    ]

    def answer(request: Any, **_: Any) -> Any:
        status, headers, body = replies.pop(0)
        return http_response(request.url, status, body, headers)

    client.meta.events.register("before-send.bedrock-runtime.Converse", answer)
    response = BedrockModel(client).converse(REQUEST)
    assert response.text == "after retry"
    assert replies == []


def test_stubbed_throttling_error_maps_to_model_throttled(client: Any) -> None:
    with Stubber(client) as stub:
        stub.add_client_error("converse", "ThrottlingException", "slow down", http_status_code=429)
        stub.add_client_error("converse", "ThrottlingException", "slow down", http_status_code=429)
        with pytest.raises(ModelThrottled):
            BedrockModel(client).converse(REQUEST)
        # Stubber answers before botocore's retry loop: one queued error per API call, not per attempt.
        with pytest.raises(ModelThrottled):
            BedrockModel(client).converse(REQUEST)
        stub.assert_no_pending_responses()


@pytest.mark.parametrize("code", ["ValidationException", "AccessDeniedException", "ResourceNotFoundException"])
def test_rejected_requests_are_a_distinct_model_unavailable(client: Any, code: str) -> None:
    with Stubber(client) as stub:
        stub.add_client_error("converse", code, "The provided model identifier is invalid.", http_status_code=400)
        with pytest.raises(ModelRequestRejected) as caught:
            BedrockModel(client).converse(REQUEST)
    assert isinstance(caught.value, ModelUnavailable)
    assert not isinstance(caught.value, ModelThrottled)
    assert code in caught.value.message
    assert MODEL_ID in caught.value.message
    assert caught.value.details["aws_error"] == code


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("ServiceUnavailableException", 503),
        ("InternalServerException", 500),
        ("ModelErrorException", 424),
    ],
)
def test_transient_errors_map_to_model_unavailable(client: Any, code: str, status: int) -> None:
    with Stubber(client) as stub:
        stub.add_client_error("converse", code, "try later", http_status_code=status)
        with pytest.raises(ModelUnavailable) as caught:
            BedrockModel(client).converse(REQUEST)
    assert type(caught.value) is ModelUnavailable
    assert caught.value.details["aws_error"] == code


def test_a_model_not_ready_yet_maps_to_throttled_for_a_retry_with_backoff(client: Any) -> None:
    # AWS: "the AWS SDK will automatically retry the operation up to 5 times"; botocore's retry modes do not
    with Stubber(client) as stub:
        stub.add_client_error("converse", "ModelNotReadyException", "try later", http_status_code=429)
        with pytest.raises(ModelThrottled) as caught:
            BedrockModel(client).converse(REQUEST)
    assert caught.value.details["aws_error"] == "ModelNotReadyException"


def test_bedrocks_own_model_timeout_is_a_timed_out_call(client: Any) -> None:
    # a long generation Bedrock gave up on: not retried (it would be billed again), the run decides
    with Stubber(client) as stub:
        stub.add_client_error("converse", "ModelTimeoutException", "too long", http_status_code=408)
        with pytest.raises(ModelTimedOut):
            BedrockModel(client, attempts=Attempts(max_attempts=3, sleep=lambda _: None)).converse(REQUEST)
        stub.assert_no_pending_responses()


def test_connection_errors_map_to_model_unavailable(client: Any) -> None:
    def unreachable(request: Any, **_: Any) -> None:
        raise EndpointConnectionError(endpoint_url=request.url)

    client.meta.events.register("before-send.bedrock-runtime.Converse", unreachable)
    with pytest.raises(ModelUnavailable) as caught:
        BedrockModel(client).converse(REQUEST)
    assert type(caught.value) is ModelUnavailable
    assert "could not be reached" in caught.value.message


def test_satisfies_the_port(client: Any) -> None:
    model: ModelClient = BedrockModel(client)
    assert model is not None


def test_client_config_uses_standard_retries() -> None:
    config: Any = bedrock_client_config(4, read_timeout=30)
    assert config.retries == {"mode": "standard", "total_max_attempts": 4}
    assert config.read_timeout == 30


def http_response(url: str, status: int, body: dict[str, Any], headers: dict[str, str]) -> AWSResponse:
    """A raw HTTP answer as botocore's endpoint would receive it from the wire."""
    all_headers: Any = {**headers, "Content-Type": "application/json"}
    return AWSResponse(url, status, all_headers, _Raw(json.dumps(body).encode()))


class _Raw:
    """The urllib3-like raw body AWSResponse reads."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, *_: Any, **__: Any) -> Any:
        yield self._body


# ------------------------------------------------------------------------------ reasoning (issue 16)
THOUGHT = {"reasoningText": {"text": "Paris first.", "signature": "c2ln"}}


def test_reasoning_blocks_are_kept_and_excluded_from_the_text(client: Any) -> None:
    content: list[dict[str, Any]] = [
        {"reasoningContent": THOUGHT},
        {"reasoningContent": {"redactedContent": b"\x00\xff"}},
        {"text": "Sunny."},
    ]
    with Stubber(client) as stub:
        stub.add_response("converse", converse_response(content, "end_turn"), REQUEST)
        response = BedrockModel(client).converse(REQUEST)
    assert response.text == "Sunny."
    assert response.reasoning == [{"reasoningContent": THOUGHT}, {"reasoningContent": {"redactedContent": "AP8="}}]


def test_redacted_reasoning_is_replayed_as_its_original_bytes(client: Any) -> None:
    turn = {"role": "assistant", "content": [{"reasoningContent": {"redactedContent": "AP8="}}, {"text": "ok"}]}
    request = {**REQUEST, "messages": [*REQUEST["messages"][:1], turn, REQUEST["messages"][2]]}
    wire = {
        **request,
        "messages": [
            *REQUEST["messages"][:1],
            {**turn, "content": [{"reasoningContent": {"redactedContent": b"\x00\xff"}}, {"text": "ok"}]},
            REQUEST["messages"][2],
        ],
    }
    with Stubber(client) as stub:
        stub.add_response("converse", converse_response([{"text": "done"}], "end_turn"), wire)
        BedrockModel(client).converse(request)
        stub.assert_no_pending_responses()
    assert request["messages"][1]["content"][0] == {"reasoningContent": {"redactedContent": "AP8="}}  # not mutated
