"""An agent with the openai-compatible provider, saved and run through the HTTP API against a local server
speaking the Chat Completions wire format (issue 16): parallel tool calls, Converse-shaped records, usage."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.openai import StaticKey
from mneme.adapters.models.registry import ModelClients, OpenAIClients
from tests.functional.api.conftest import Api
from tests.support.deps import World, make_world
from tests.support.openai_stub import PARALLEL_TOOL_CALLS, TEXT, StubServer, openai_stub

KEY = "sk-local-test-key"


def two_searches() -> dict[str, Any]:
    reply = copy.deepcopy(PARALLEL_TOOL_CALLS)
    calls = reply["choices"][0]["message"]["tool_calls"]
    for call, query in zip(calls, ("green tea", "black tea"), strict=True):
        call["function"] = {"name": "memory-search", "arguments": json.dumps({"query": query})}
    return reply


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with openai_stub() as server:
        yield server


@pytest.fixture
def world(stub: StubServer) -> World:
    world = make_world(OfflineModel(), MNEME_OPENAI_BASE_URL=stub.base_url, MNEME_MODEL_ALLOW_PRIVATE_NETWORKS="true")
    settings = world.deps.settings
    world.deps.models = ModelClients(
        None,
        openai=OpenAIClients(settings.openai_base_url_for, lambda _arn: StaticKey(KEY), allow_private_networks=True),
    )
    return world


AGENT: dict[str, Any] = {
    "label": "GPT",
    "model": {"provider": "openai-compatible", "model_id": "gpt-4o", "inference": {"max_tokens": 256}},
    "tools": ["memory-search"],
    "memory_policy": {"tool_read_namespaces": ["vector.user.${user_id}.*"]},
}


def test_an_openai_compatible_agent_is_saved_and_runs_against_the_endpoint(api: Api, stub: StubServer) -> None:
    # Given an agent on the openai-compatible provider
    assert api.put("/v1/agents/gpt", AGENT).status == 200
    stub.reply(two_searches(), TEXT)
    # When a run asks something that needs two searches at once
    reply = api.post("/v1/runs", {"agent_id": "gpt", "input": "Which teas do I like?"})
    # Then both tool calls ran and the model's second call saw both results
    assert reply.status == 200, reply.body
    run = reply.body
    assert run["status"] == "succeeded" and run["output"].startswith("Why don't skeletons")
    second = stub.received[1].body["messages"]
    assert [m["role"] for m in second][-3:] == ["assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second if m["role"] == "tool"] == [
        "call_pFdKcCu5taDTtOOfX14vEDRp",
        "call_Veeyp2hYJOKp0wT7ODxmTjaS",
    ]
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in stub.received)
    # and the usage of both calls is on the run
    assert (run["usage"]["input_tokens"], run["usage"]["output_tokens"]) == (91 + 23, 14 + 14)


def test_the_recorded_requests_stay_converse_shaped(api: Api, stub: StubServer) -> None:
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(two_searches(), TEXT)
    run_id = api.post("/v1/runs", {"agent_id": "gpt", "input": "Which teas do I like?"}).body["run_id"]
    requests = api.get(f"/v1/runs/{run_id}/context").body["requests"]
    assert len(requests) == 2
    assert requests[0]["modelId"] == "gpt-4o" and "toolConfig" in requests[0]
    assert [next(iter(b)) for b in requests[1]["messages"][-2]["content"]] == ["toolUse", "toolUse"]
    assert KEY not in json.dumps(requests)


def test_an_endpoint_the_deployment_does_not_allow_is_refused(api: Api) -> None:
    model = {**AGENT["model"], "endpoint": "http://169.254.169.254/latest"}
    reply = api.put("/v1/agents/gpt", {**AGENT, "model": model})
    assert reply.status == 400 and reply.body["field"] == "model.endpoint"


def test_an_endpoint_the_deployment_allows_is_saved(api: Api, stub: StubServer) -> None:
    model = {**AGENT["model"], "endpoint": stub.base_url + "/"}
    assert api.put("/v1/agents/gpt", {**AGENT, "model": model}).status == 200


def test_limits_left_out_of_the_sent_schema_are_still_enforced_by_mneme(api: Api, stub: StubServer) -> None:
    # Given an agent whose memory-search tool limits the query length (kept in the recorded request)
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(TEXT)
    run_id = api.post("/v1/runs", {"agent_id": "gpt", "input": "hi"}).body["run_id"]
    spec = api.get(f"/v1/runs/{run_id}/context").body["requests"][0]["toolConfig"]["tools"][0]["toolSpec"]
    limit = spec["inputSchema"]["json"]["properties"]["query"]["maxLength"]
    assert "maxLength" not in json.dumps(stub.received[0].body["tools"])
    # When the model calls it with a query one character too long
    reply = copy.deepcopy(PARALLEL_TOOL_CALLS)
    reply["choices"][0]["message"]["tool_calls"] = reply["choices"][0]["message"]["tool_calls"][:1]
    call = reply["choices"][0]["message"]["tool_calls"][0]
    call["function"] = {"name": "memory-search", "arguments": json.dumps({"query": "x" * (limit + 1)})}
    stub.reply(reply, TEXT)
    api.post("/v1/runs", {"agent_id": "gpt", "input": "search"})
    # Then mneme refused the call and told the model so
    tool_message = [m for m in stub.received[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "invalid arguments" in tool_message["content"]


def _with_message(message: Any) -> dict[str, Any]:
    reply = copy.deepcopy(TEXT)
    reply["choices"][0]["message"] = message
    return reply


MALFORMED = {
    "message-is-text": _with_message("Why don't skeletons fight?"),
    "choice-is-text": {**TEXT, "choices": ["Why don't skeletons fight?"]},
    "no-choice": {**TEXT, "choices": []},
    "tool-call-is-text": _with_message({"role": "assistant", "content": None, "tool_calls": ["memory-search"]}),
    "function-is-text": _with_message(
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": "x"}]}
    ),
    "tool-calls-not-a-list": _with_message({"role": "assistant", "content": None, "tool_calls": {"id": "c1"}}),
}


@pytest.mark.parametrize("answer", MALFORMED.values(), ids=MALFORMED.keys())
def test_an_answer_that_is_no_chat_completion_fails_the_run_with_that_reason(
    api: Api, stub: StubServer, answer: dict[str, Any]
) -> None:
    # a broken proxy or server: the run fails naming the endpoint's fault, never a 500 nor an empty success
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(answer)
    reply = api.post("/v1/runs", {"agent_id": "gpt", "input": "hi"})
    assert reply.status == 200, reply.body
    assert reply.body["status"] == "failed"
    assert reply.body["error"].startswith(
        "ModelUnavailable: the model endpoint for 'gpt-4o' answered no chat completion"
    )


def test_an_answer_whose_content_is_a_list_of_parts_is_the_runs_output(api: Api, stub: StubServer) -> None:
    # Mistral's reasoning models (magistral) answer content as typed chunks: the thinking first, then the text
    content = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "The user greets me."}]},
        {"type": "text", "text": "Hello"},
        {"type": "text", "text": " there."},
    ]
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(_with_message({"role": "assistant", "content": content}))
    reply = api.post("/v1/runs", {"agent_id": "gpt", "input": "hi"})
    assert (reply.body["status"], reply.body["output"]) == ("succeeded", "Hello there.")


@pytest.mark.parametrize("count", [float("inf"), 1e308, float("nan"), 10**40], ids=["inf", "1e308", "nan", "10**40"])
def test_a_token_count_no_call_can_have_is_not_counted(api: Api, stub: StubServer, count: float) -> None:
    # JSON's 1e400 parses as inf (int() of it raised OverflowError: a 500); 1e308 as an int has 309 digits,
    # which DynamoDB refuses to store (a number has at most 38 digits), so the run could not be saved on AWS
    answer = copy.deepcopy(TEXT)
    answer["usage"].update(prompt_tokens=count, completion_tokens=count)
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(answer)
    reply = api.post("/v1/runs", {"agent_id": "gpt", "input": "hi"})
    assert reply.status == 200, reply.body
    assert reply.body["status"] == "succeeded"
    assert (reply.body["usage"]["input_tokens"], reply.body["usage"]["output_tokens"]) == (0, 0)


def test_a_large_but_real_token_count_is_counted(api: Api, stub: StubServer) -> None:
    answer = copy.deepcopy(TEXT)
    answer["usage"].update(prompt_tokens=2_000_000, completion_tokens=128_000)
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(answer)
    usage = api.post("/v1/runs", {"agent_id": "gpt", "input": "hi"}).body["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (2_000_000, 128_000)
