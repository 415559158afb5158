"""Approvals and the context preview over HTTP (SPEC §7, §10)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api, add_agent, main_items, stored_runs
from tests.support.deps import World


@pytest.fixture
def master(world: World) -> None:
    add_agent(world, "helper", label="Helper")
    add_agent(
        world,
        "master",
        label="Master",
        tools=["memory-search", "delegate-to-agent"],
        delegates=["helper"],
        memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"]},
    )


def _start(api: Api, text: str, **fields: Any) -> dict[str, Any]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": text, **fields})
    assert reply.status in (200, 202), reply.text
    body: dict[str, Any] = reply.body
    return body


def _events(api: Api, run_id: str, **options: Any) -> list[dict[str, Any]]:
    reply = api.get(f"/v1/runs/{run_id}/events", **options)
    assert reply.status == 200
    events: list[dict[str, Any]] = reply.body["events"]
    return events


def _step(api: Api, run_id: str, depth: int = 0) -> dict[str, Any]:
    event = {"action": "step", "run_id": run_id, "depth": depth, "delegation_refused": False, "execution_id": "x"}
    result: dict[str, Any] = api.runtime.handle(event)
    return result


# ------------------------------------------------------------------------------------------ approvals
def _waiting(api: Api) -> tuple[str, str]:
    run_id = _start(api, "/search cats", tool_approval="prompt")["run_id"]
    requested = next(e for e in _events(api, run_id) if e["type"] == "approval_requested")
    return run_id, str(requested["calls"][0]["call_id"])


@pytest.mark.usefixtures("master")
def test_approving_the_pending_call_resumes_the_state_machine(api: Api, world: World) -> None:
    # Given a run waiting for approval whose token the state machine stored
    run_id, call_id = _waiting(api)
    api.runtime.handle({"action": "await_approval", "run_id": run_id, "depth": 0, "task_token": "token-1"})
    # When alice approves the call once
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    # Then the answer lists nothing pending, the execution was resumed, and the decision audited
    assert reply.status == 200
    assert (reply.body["call_id"], reply.body["decision"], reply.body["pending"]) == (call_id, "once", [])
    assert world.orchestrator.resumed == [("token-1", {"run_id": run_id})]
    approvals = world.deps.audit.query("alice", action="approval").records
    assert [(r.run_id, r.detail["decision"]) for r in approvals] == [(run_id, "once")]


@pytest.mark.usefixtures("master")
def test_an_approved_call_runs_at_the_next_step(api: Api) -> None:
    run_id, call_id = _waiting(api)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    _step(api, run_id)
    run = api.get(f"/v1/runs/{run_id}").body
    assert run["status"] == "succeeded"
    assert "memory-search:" in run["output"]


@pytest.mark.usefixtures("master")
def test_a_denied_call_is_a_tool_error(api: Api) -> None:
    run_id, call_id = _waiting(api)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "deny"})
    _step(api, run_id)
    errors = [e for e in _events(api, run_id) if e["type"] == "tool_call" and e["status"] == "error"]
    assert [e["call_id"] for e in errors] == [call_id]
    assert errors[0]["error"]
    assert api.get(f"/v1/runs/{run_id}").body["status"] == "succeeded"


@pytest.mark.usefixtures("master")
def test_another_user_cannot_answer_an_approval(api: Api, world: World) -> None:
    run_id, call_id = _waiting(api)
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"}, user="bob")
    assert reply.status == 404
    assert world.deps.audit.query("alice", action="approval").records == []


@pytest.mark.usefixtures("master")
def test_answering_twice_is_409(api: Api) -> None:
    run_id, call_id = _waiting(api)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "deny"})
    assert (reply.status, reply.body["error"]) == (409, "conflict")


@pytest.mark.usefixtures("master")
def test_an_unknown_call_id_is_404(api: Api) -> None:
    run_id, _ = _waiting(api)
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": "call-nope", "decision": "once"})
    assert (reply.status, reply.body["field"]) == (404, "call_id")


@pytest.mark.usefixtures("master")
def test_an_invalid_decision_is_400(api: Api) -> None:
    run_id, call_id = _waiting(api)
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "maybe"})
    assert (reply.status, reply.body["field"]) == (400, "decision")


@pytest.mark.usefixtures("master")
def test_approving_a_finished_run_is_409(api: Api) -> None:
    run_id = _start(api, "hello")["run_id"]
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": "call-1", "decision": "once"})
    assert reply.status in (404, 409)
    assert reply.body["error"] in ("not_found", "conflict")


# ------------------------------------------------------------------------------------------ preview
@pytest.mark.usefixtures("master")
def test_the_preview_answers_the_request_that_would_be_sent(api: Api) -> None:
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": "hello"})
    assert reply.status == 200
    assert {"request", "memory_hits", "warnings"} <= set(reply.body)
    request = reply.body["request"]
    assert request["modelId"] == "offline"
    assert request["messages"][-1]["content"][0]["text"].startswith("hello\n")


@pytest.mark.usefixtures("master")
def test_the_preview_writes_nothing_but_the_read_audit(api: Api, world: World) -> None:
    # Given the state of the main table before
    before = main_items(world)
    # When alice previews a run
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": "hello"})
    # Then no run, chat, event or anything else was written, no model was called, nothing was queued
    assert reply.status == 200
    assert main_items(world) == before
    assert stored_runs(world) == []
    assert world.deps.chats.list_chats("alice") == []
    assert world.orchestrator.started == [] and world.queue.jobs == []
    # And the only audit records are the memory reads
    records = world.deps.audit.query("alice").records
    assert records and {r.action for r in records} == {"read"}


@pytest.mark.usefixtures("master")
def test_the_preview_shows_injected_memory_hits(api: Api) -> None:
    api.post("/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": "alice likes green tea"})
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": "alice likes green tea"})
    hits = reply.body["memory_hits"]
    assert [h["content"] for h in hits] == ["alice likes green tea"]
    assert "RELEVANT CONTEXT FROM LONG-TERM MEMORY:" in reply.body["request"]["messages"][-1]["content"][0]["text"]


def test_the_preview_of_an_unknown_agent_is_404(api: Api) -> None:
    assert api.post("/v1/context/preview", {"agent_id": "nobody", "input": "hello"}).status == 404


@pytest.mark.usefixtures("master")
def test_the_preview_of_an_oversized_input_is_413(api: Api) -> None:
    assert api.post("/v1/context/preview", {"agent_id": "master", "input": "x" * 100_001}).status == 413
