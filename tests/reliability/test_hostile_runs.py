"""Hostile input and faults inside a run (issue 12.1–12.4): no 5xx that hides a run, no run left running.

Each test reproduces a defect found by a hostile user; on the release before issue 12 each of them failed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.runs.service import step
from mneme.errors import EventRejected, OrchestratorUnavailable
from mneme.models.agent import Agent, ExternalTool
from mneme.models.run import RunStatus
from mneme.spec_limits import MAX_DOCUMENT_CHARS
from tests.fakes.model import ScriptedModel, tool_use_response
from tests.functional.api.conftest import Api
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER
from tests.support.deps import World, make_world

WRITE_POLICY = {
    "auto_read_enabled": False,
    "allow_tool_write": True,
    "allowed_write_namespaces": ["vector.user.${user_id}.*"],
    "tool_read_namespaces": ["vector.user.${user_id}.*"],
}
BROKEN_TOOL = ExternalTool(
    name="broken",
    description="A tool whose invoker has a bug.",
    function_arn="arn:aws:lambda:us-east-1:123456789012:function:broken",
)


def _world(label: str, model: Any = None, tools: Any = None) -> World:
    world = LEDGER.world(label, make_world(model or OfflineModel(), tools=tools))
    world.deps.config.put_agent(
        Agent(
            agent_id="writer",
            owner="alice",
            label="Writer",
            tools=["memory-search", "memory-write"],
            external_tools=[BROKEN_TOOL],
            memory_policy=WRITE_POLICY,
        )
    )
    return world


def _events(world: World, run_id: str) -> list[str]:
    return [event.type for event in world.deps.runs.list_events(run_id)]


def _bug(function_arn: str, payload: dict[str, Any]) -> Any:
    raise ZeroDivisionError("a bug in an adapter")


# ------------------------------------------------------------------------------------------ 12.1
def test_an_unexpected_error_in_the_fast_path_fails_the_run_and_the_500_names_it(figures: Figures) -> None:
    # Given a run whose tool invoker crashes with an error no layer expects, started with an Idempotency-Key
    world = _world("12.1 fast path", tools=_bug)
    api = Api(world)
    key = {"Idempotency-Key": "crash-1"}
    # When alice starts it
    reply = api.post("/v1/runs", {"agent_id": "writer", "input": "/tool broken {}"}, headers=key)
    # Then the answer is a 500 that names the run, and the run is failed with the reason and an error event
    assert reply.status == 500 and reply.body["error"] == "internal_error"
    run = world.deps.runs.get_run(reply.body["run_id"])
    assert run is not None and run.status is RunStatus.FAILED
    assert "ZeroDivisionError" in (run.error or "")
    assert _events(world, run.run_id)[-2:] == ["error", "completed"]
    # And a retry with the same key answers the failed run, not "202 running" forever
    again = api.post("/v1/runs", {"agent_id": "writer", "input": "/tool broken {}"}, headers=key)
    assert (again.status, again.body["status"]) == (200, "failed")
    figures.add("hostile crashes ending in a failed run")


def test_an_unexpected_error_in_a_state_machine_step_fails_the_run_without_escaping(figures: Figures) -> None:
    # Given a handed-off run whose model crashes in the step (a bug, not a Bedrock error)
    model = ScriptedModel([tool_use_response(("delegate-to-agent", {"agent": "writer", "input": "x"}))])
    world = _world("12.1 step", model)
    world.deps.config.put_agent(
        Agent(agent_id="boss", owner="alice", label="Boss", tools=["delegate-to-agent"], delegates=["writer"])
    )
    api = Api(world)
    started = api.post("/v1/runs", {"agent_id": "boss", "input": "delegate"})
    assert started.status == 202
    child = world.deps.runs.get_run(started.body["run_id"]).children[0]  # type: ignore[union-attr]
    model.add(RecursionError("maximum recursion depth exceeded"))
    # When the state machine steps the child: the step answers (nothing is raised to the Lambda runtime)
    result = step(world.deps, child)
    # Then the child is failed with the reason, and the parent's next step collects it as a tool error
    assert (result.outcome, result.run.status) == ("done", RunStatus.FAILED)
    assert "RecursionError" in (result.run.error or "")
    assert _events(world, child)[-2:] == ["error", "completed"]
    model.add("the child failed, sorry")
    parent = step(world.deps, started.body["run_id"])
    assert parent.run.status is RunStatus.SUCCEEDED
    figures.add("hostile crashes ending in a failed run")


class _NoStateMachine:
    def start(self, run_id: str, *, depth: int) -> str:
        raise OrchestratorUnavailable("StartExecution: service unavailable")


def test_a_hand_off_whose_execution_cannot_start_answers_the_run_failed_not_running() -> None:
    # Given a run that must hand off (it delegates), and a state machine that cannot be started
    model = ScriptedModel([tool_use_response(("delegate-to-agent", {"agent": "writer", "input": "x"}))])
    world = _world("12.1 no state machine", model)
    world.deps.config.put_agent(
        Agent(agent_id="boss", owner="alice", label="Boss", tools=["delegate-to-agent"], delegates=["writer"])
    )
    world.deps.orchestrator = _NoStateMachine()  # type: ignore[assignment]
    # When it is started
    reply = Api(world).post("/v1/runs", {"agent_id": "boss", "input": "delegate"})
    # Then the answer names the run, failed with the reason: nothing is left "running" that nothing runs
    assert (reply.status, reply.body["status"]) == (200, "failed")
    assert "OrchestratorUnavailable" in reply.body["error"]
    assert world.deps.runs.get_run(reply.body["run_id"]).status is RunStatus.FAILED  # type: ignore[union-attr]
    assert world.deps.runs.list_unfinished() == []  # nor the child it had created


def test_a_ttl_of_1e12_seconds_is_a_tool_error_not_a_stuck_run() -> None:
    # Given the reproduction: memory-write with ttl_seconds 1e12 (OverflowError), with an Idempotency-Key
    world = _world("12.1 ttl")
    api = Api(world)
    args = json.dumps({"content": "x", "namespace": "vector.user.alice.memory", "ttl_seconds": 1e12})
    body = {"agent_id": "writer", "input": f"/tool memory-write {args}"}
    # When the run is started twice with one key
    first = api.post("/v1/runs", body, headers={"Idempotency-Key": "ttl"})
    again = api.post("/v1/runs", body, headers={"Idempotency-Key": "ttl"})
    # Then both answers are the finished run, whose model got a tool error naming the bound
    assert (first.status, first.body["status"]) == (200, "succeeded")
    assert again.body == first.body
    assert "ttl_seconds must be smaller than or equal to 315360000" in first.body["output"]
    assert world.memory.documents == {}


# ------------------------------------------------------------------------------------------ 12.2
def _tool_output(world: World, tool: str, arguments: dict[str, Any]) -> str:
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": f"/tool {tool} {json.dumps(arguments)}"})
    assert reply.status == 200, reply.text
    return str(reply.body["output"])


def test_tool_arguments_get_the_bounds_of_the_http_bodies() -> None:
    world = _world("12.2")
    own = "vector.user.alice.memory"
    cases: dict[str, tuple[str, dict[str, Any], str]] = {
        "namespaces": ("memory-search", {"query": "q", "namespaces": [own] * 33}, "must contain less than or equal"),
        "query": ("memory-search", {"query": "q" * 20_001}, "must be shorter than or equal to 20000"),
        "tags": ("memory-write", {"content": "c", "namespace": own, "tags": ["t"] * 33}, "less than or equal to 32"),
        "short ttl": ("memory-write", {"content": "c", "namespace": own, "ttl_seconds": 1}, "bigger than or equal"),
    }
    for name, (tool, arguments, message) in cases.items():
        output = _tool_output(world, tool, arguments)
        assert f"- {tool} (error): Error: {tool}: invalid arguments:" in output and message in output, name
    assert world.memory.documents == {} and world.memory.searches == []


def test_memory_write_content_over_the_stored_limit_is_a_tool_error() -> None:
    # Given a model that writes one character more than a memory entry may hold (longer than the run input
    # allows, so it comes from the model, not through /tool): shorter content is stored in chunks (11.3)
    content = "c" * (MAX_DOCUMENT_CHARS + 1)
    call = ("memory-write", {"content": content, "namespace": "vector.user.alice.memory"})
    model = ScriptedModel([tool_use_response(call), "done"])
    world = _world("12.2 content", model)
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": "remember this"})
    # Then the model gets a tool error naming the bound, and nothing is written
    assert (reply.status, reply.body["status"]) == (200, "succeeded")
    tool_results = json.dumps(model.last_request["messages"][-1]["content"])
    assert f"shorter than or equal to {MAX_DOCUMENT_CHARS}" in tool_results
    assert world.memory.documents == {}


def test_delegation_arguments_are_validated_before_use() -> None:
    # Given a model that calls delegate-to-agent without its input (a KeyError before issue 12)
    model = ScriptedModel([tool_use_response(("delegate-to-agent", {"agent": "writer"})), "done"])
    world = _world("12.2 delegation", model)
    world.deps.config.put_agent(
        Agent(agent_id="boss", owner="alice", label="Boss", tools=["delegate-to-agent"], delegates=["writer"])
    )
    reply = Api(world).post("/v1/runs", {"agent_id": "boss", "input": "go"})
    # Then the model gets a tool error it can correct, and no child run is made
    assert (reply.status, reply.body["status"], reply.body["children"]) == (200, "succeeded", [])
    tool_results = model.last_request["messages"][-1]["content"]
    assert "invalid arguments: data must contain ['input'] properties" in json.dumps(tool_results)


# ------------------------------------------------------------------------------------------ 12.3
DEEP = "[" * 1000 + "]" * 1000


def test_a_body_nested_1000_levels_deep_is_a_400() -> None:
    api = Api(_world("12.3 body"))
    for path, body in [
        ("/v1/runs", '{"agent_id": "writer", "input": "x", "memory": ' + DEEP + "}"),
        ("/v1/memory/search", '{"query": "x", "namespaces": ' + DEEP + "}"),
        ("/v1/agents/deep", '{"label": "Deep", "external_tools": ' + DEEP + "}"),
    ]:
        reply = api.call("POST" if "agents" not in path else "PUT", path, body)
        assert (reply.status, reply.body["field"]) == (400, "body"), (path, reply.text)
        assert "nested more than 64 levels" in reply.body["message"]


def test_tool_arguments_nested_1000_levels_deep_are_a_tool_error() -> None:
    # the offline model's /tool directive (its JSON is parsed by the model adapter) ...
    world = _world("12.3 directive")
    output = _tool_output_raw(world, '/tool memory-search {"query": "q", "namespaces": ' + DEEP + "}")
    assert "nested more than 64 levels" in output
    # ... and a model whose toolUse input is that deep (a real provider's reply)
    model = ScriptedModel([tool_use_response(("memory-search", {"query": "q", "namespaces": _nested(1000)})), "ok"])
    world = _world("12.3 toolUse", model)
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": "search"})
    assert (reply.status, reply.body["status"]) == (200, "succeeded")
    assert "nested more than 64 levels" in json.dumps(model.last_request["messages"][-1])


def _nested(levels: int) -> Any:
    """A list nested ``levels`` deep, built without recursion."""
    deep: Any = []
    for _ in range(levels - 1):
        deep = [deep]
    return deep


def _tool_output_raw(world: World, text: str) -> str:
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": text})
    assert reply.status == 200, reply.text
    return str(reply.body["output"])


def test_an_event_detail_nested_1000_levels_deep_is_rejected_by_name() -> None:
    world = _world("12.3 event")
    deep = _nested(1000)
    event = {
        "id": "evt-deep",
        "detail-type": "mneme.RunRequested",
        "detail": {"user_id": "alice", "agent_id": "writer", "input": "x", "memory": deep},
    }
    # a rejected event fails its invocation by name (EventRejected: Lambda's retry, then the DLQ), no 500
    with pytest.raises(EventRejected, match="nested more than 64 levels"):
        Api(world).runtime.handle(event)


# ------------------------------------------------------------------------------------------ 12.4
def test_a_run_that_succeeded_has_its_turn_in_a_readable_chat() -> None:
    # Given the reproduction: tool arguments nested 300 levels (json accepts them, the chat's serializer did not)
    deep: Any = {}
    for _ in range(300):
        deep = {"a": deep}
    model = ScriptedModel([tool_use_response(("memory-search", {"query": "q", "filter": deep})), "answered"])
    world = _world("12.4 chat", model)
    api = Api(world)
    # When the run finishes
    reply = api.post("/v1/runs", {"agent_id": "writer", "input": "go"})
    # Then the client gets the succeeded run, and its chat holds the turn and can be read back
    assert (reply.status, reply.body["status"]) == (200, "succeeded")
    chat = api.get(f"/v1/chats/{reply.body['chat_id']}")
    assert chat.status == 200 and chat.body["messages"][-1]["text"] == "answered"


class _ChatStoreThatCrashes:
    """A chat store whose write raises what no adapter translates (a serialization bug)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_chat(self, chat: Any) -> None:
        raise TypeError("Object of type bytes is not JSON serializable")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_run_whose_chat_turn_cannot_be_stored_is_failed_not_succeeded() -> None:
    world = _world("12.4 failed turn", ScriptedModel(["the answer"]))
    world.deps.chats = _ChatStoreThatCrashes(world.deps.chats)
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": "go"})
    # Then the answer names the run, and the stored run is failed: never "succeeded" without its turn
    assert reply.status == 500 and "run_id" in reply.body
    run = world.deps.runs.get_run(reply.body["run_id"])
    assert run is not None and run.status is RunStatus.FAILED and "TypeError" in (run.error or "")
    assert world.queue.jobs == []
