"""Every sample event in ``events/`` (the ``sam local invoke -e`` payloads) is a real AWS shape that the
run function answers sensibly: each is loaded, what it names is seeded, and it is driven through
``Runtime.handle`` over the in-memory fakes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.engine.runs.service import start_run
from mneme.models.agent import Agent, Task
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller
from mneme.records import replace
from mneme.runtime import Runtime
from tests.fakes.model import ScriptedModel, tool_use_response
from tests.support.deps import World, make_world

EVENTS = Path(__file__).resolve().parents[2] / "events"
ALICE = Caller(user_id="alice")


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


# ------------------------------------------------------------------------------------------------ seeding
def _agents(world: World) -> World:
    world.deps.config.put_agent(Agent(agent_id="writer", owner="alice", label="Writer"))
    world.deps.config.put_agent(
        Agent(
            agent_id="researcher",
            owner="alice",
            label="Researcher",
            tools=["memory-search", "delegate-to-agent"],
            delegates=["writer"],
            memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"]},
        )
    )
    world.deps.config.put_task(Task(task_id="weekly", agent_id="researcher", owner="alice", name="Weekly"))
    return world


def _offline() -> World:
    return _agents(make_world(OfflineModel()))


def _start(world: World, run_id: str, chat_id: str, text: str, **fields: Any) -> None:
    """Start a run whose id is ``run_id`` (the chat is named, so the run takes the first id)."""
    ids = iter([run_id])
    deps = replace(world.deps, ids=lambda: next(ids, None) or world.deps.ids())
    start_run(deps, ALICE, RunRequest(agent_id="researcher", input=text, chat_id=chat_id, **fields))


def finished_run() -> World:
    world = _offline()
    _start(world, "run-0001", "chat-0001", "What do you know about green tea?")
    return world


def delegating_run() -> World:
    world = _offline()
    _start(world, "run-0002", "chat-0002", "/delegate writer :: Write a haiku about green tea")
    return world


def waiting_run() -> World:
    model = ScriptedModel([tool_use_response(("memory-search", {"query": "green tea"}, "call-green-tea-1"))])
    model.default = "offline: green tea is a tea"
    world = _agents(make_world(model))
    _start(world, "run-0002", "chat-0002", "Look up green tea", tool_approval="prompt")
    return world


def stored_document() -> World:
    world = _offline()
    document = memory_ops.new_document(
        "doc-0001", "vector.user.alice.preferences", "alice", "Alice likes green tea.", clock=world.clock
    )
    world.memory.put([(document, world.embedder.embed([document.content])[0])])
    return world


# ------------------------------------------------------------------------------------------------ HTTP
@dataclass(frozen=True)
class HttpCase:
    seed: Callable[[], World]
    status: int


HTTP_CASES = {
    "http-health.json": HttpCase(_offline, 200),
    "http-openapi.json": HttpCase(_offline, 200),
    "http-get-settings.json": HttpCase(_offline, 200),
    "http-put-settings.json": HttpCase(_offline, 200),
    "http-list-agents.json": HttpCase(_offline, 200),
    "http-put-agent.json": HttpCase(_offline, 200),
    "http-get-agent.json": HttpCase(_offline, 200),
    "http-delete-agent.json": HttpCase(_offline, 204),
    "http-put-task.json": HttpCase(_offline, 200),
    "http-list-tasks.json": HttpCase(_offline, 200),
    "http-put-skill.json": HttpCase(_offline, 200),
    "http-list-skills.json": HttpCase(_offline, 200),
    "http-post-run.json": HttpCase(_offline, 200),
    "http-post-run-delegate.json": HttpCase(_offline, 202),
    "http-get-run.json": HttpCase(finished_run, 200),
    "http-get-run-events.json": HttpCase(finished_run, 200),
    "http-get-run-context.json": HttpCase(finished_run, 200),
    "http-approval.json": HttpCase(waiting_run, 200),
    "http-context-preview.json": HttpCase(_offline, 200),
    "http-list-chats.json": HttpCase(finished_run, 200),
    "http-get-chat.json": HttpCase(finished_run, 200),
    "http-memory-search.json": HttpCase(stored_document, 200),
    "http-memory-write.json": HttpCase(_offline, 201),
    "http-memory-delete.json": HttpCase(stored_document, 204),
    "http-audit.json": HttpCase(finished_run, 200),
    "http-mcp-memory-search.json": HttpCase(stored_document, 200),
}


def test_every_http_event_file_has_a_case() -> None:
    assert sorted(p.name for p in EVENTS.glob("http-*.json")) == sorted(HTTP_CASES)


@pytest.mark.parametrize("name", sorted(HTTP_CASES))
def test_an_http_event_is_a_payload_v2_with_jwt_claims(name: str) -> None:
    event = load_event(name)
    assert event["version"] == "2.0"
    assert event["requestContext"]["http"]["method"] in ("GET", "PUT", "POST", "DELETE")
    assert event["requestContext"]["http"]["path"] == event["rawPath"]
    if event["rawPath"] not in ("/v1/health", "/v1/openapi.json"):
        assert event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] == "alice"
    if event["rawPath"].startswith("/v1/") and event["rawPath"] not in ("/v1/health", "/v1/openapi.json"):
        assert event["pathParameters"] == {"proxy": event["rawPath"].removeprefix("/v1/")}
    if "body" in event:
        json.loads(event["body"])


@pytest.mark.parametrize("name", sorted(HTTP_CASES))
def test_an_http_event_is_answered(name: str) -> None:
    # Given a world holding what the event names
    case = HTTP_CASES[name]
    world = case.seed()
    # When the event reaches the run function
    response = Runtime(world.deps).handle(load_event(name))
    # Then it answers the expected status with JSON (or nothing for a 204)
    assert response["statusCode"] == case.status, response.get("body")
    if case.status != 204:
        assert isinstance(json.loads(response["body"]), dict)


def test_the_post_run_event_is_idempotent() -> None:
    # Given the post-run event (it carries an Idempotency-Key) sent twice
    world = _offline()
    runtime = Runtime(world.deps)
    first = json.loads(runtime.handle(load_event("http-post-run.json"))["body"])
    second = json.loads(runtime.handle(load_event("http-post-run.json"))["body"])
    # Then one run answers both
    assert first["run_id"] == second["run_id"]
    assert first["output"].startswith("offline")


def test_the_approval_event_resumes_the_waiting_run() -> None:
    world = waiting_run()
    runtime = Runtime(world.deps)
    runtime.handle(load_event("step-await-approval.json"))
    body = json.loads(runtime.handle(load_event("http-approval.json"))["body"])
    assert (body["call_id"], body["pending"]) == ("call-green-tea-1", [])
    assert world.orchestrator.resumed == [
        (load_event("step-await-approval.json")["task_token"], {"run_id": "run-0002"})
    ]


# ------------------------------------------------------------------------------------------------ others
def test_the_eventbridge_event_starts_a_run_for_the_named_user() -> None:
    # Given alice's agent and task
    world = _offline()
    event = load_event("eventbridge-run-requested.json")
    assert event["detail-type"] == "mneme.RunRequested"
    # When the scheduled event arrives
    answer = Runtime(world.deps).handle(event)
    # Then a run of alice finished with the agent's answer
    assert answer["status"] == "succeeded"
    run = world.deps.runs.get_run(answer["run_id"])
    assert run is not None
    assert (run.user_id, run.agent_id, run.task_id) == ("alice", "researcher", "weekly")
    assert run.output == "offline: Prepare my morning digest."


def test_the_sqs_event_writes_the_memory_entry() -> None:
    # Given the memory writer's SQS batch
    world = _offline()
    event = load_event("sqs-memory-write.json")
    assert event["Records"][0]["eventSource"] == "aws:sqs"
    # When the writer processes it
    answer = write_batch(WriterPorts.of(world.deps), event["Records"])
    # Then nothing failed, the entry is indexed under its job id, and the write audited
    assert answer == {"batchItemFailures": []}
    document = world.memory.documents["run-0001-output"]
    assert (document.namespace, document.content) == (
        "vector.agent.alice.memory",
        "Green tea has less caffeine than coffee.",
    )
    assert [r.action for r in world.deps.audit.query("alice").records] == ["write"]


def test_the_step_event_advances_a_handed_off_run() -> None:
    # Given a run handed off because it delegates
    world = delegating_run()
    # When the state machine steps it
    answer = Runtime(world.deps).handle(load_event("step.json"))
    # Then the step asks for the child run, one level deeper
    assert (answer["run_id"], answer["depth"], answer["outcome"]) == ("run-0002", 0, "delegate")
    assert [child["depth"] for child in answer["children"]] == [1]


def test_the_await_approval_event_stores_the_task_token() -> None:
    world = waiting_run()
    answer = Runtime(world.deps).handle(load_event("step-await-approval.json"))
    assert answer == {"run_id": "run-0002", "status": "waiting_approval"}
    marks = world.deps.runs.list_marks("run-0002", "token")
    assert marks["token"]["token"] == load_event("step-await-approval.json")["task_token"]
    assert world.orchestrator.resumed == []


def test_the_fail_event_marks_the_run_failed_with_the_reason() -> None:
    world = waiting_run()
    answer = Runtime(world.deps).handle(load_event("step-fail.json"))
    assert answer == {"run_id": "run-0002", "status": "failed"}
    run = world.deps.runs.get_run("run-0002")
    assert run is not None and run.error == "ModelUnavailable: Bedrock is unavailable"


def test_every_event_file_is_covered() -> None:
    others = {
        "env.json",  # sam local invoke --env-vars (not an event; tests/infra/test_sam_local.py checks it)
        "eventbridge-run-requested.json",
        "sqs-memory-write.json",
        "step.json",
        "step-await-approval.json",
        "step-fail.json",
    }
    assert {p.name for p in EVENTS.glob("*.json")} == set(HTTP_CASES) | others


def test_the_mcp_event_finds_the_stored_memory_over_mcp() -> None:
    world = stored_document()
    body = json.loads(Runtime(world.deps).handle(load_event("http-mcp-memory-search.json"))["body"])
    result = body["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["hits"]
    assert {r.detail["via"] for r in world.deps.audit.query("alice", action="read").records} == {"mcp"}
