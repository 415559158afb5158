"""Approvals and the context preview over HTTP (SPEC §7, §10)."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api, main_items, stored_runs
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World


# ------------------------------------------------------------------------------------------ approvals
def _waiting(api: Api) -> tuple[str, str]:
    run_id = start(api, "/search cats", tool_approval="prompt")["run_id"]
    requested = next(e for e in events_of(api, run_id) if e["type"] == "approval_requested")
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
    step_event(api, run_id)
    run = api.get(f"/v1/runs/{run_id}").body
    assert run["status"] == "succeeded"
    assert "memory-search:" in run["output"]


@pytest.mark.usefixtures("master")
def test_a_denied_call_is_a_tool_error(api: Api) -> None:
    run_id, call_id = _waiting(api)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "deny"})
    step_event(api, run_id)
    errors = [e for e in events_of(api, run_id) if e["type"] == "tool_call" and e["status"] == "error"]
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
    assert "'once'" in reply.body["message"]


@pytest.mark.usefixtures("master")
def test_the_same_answer_again_answers_as_the_first_and_writes_nothing(api: Api, world: World) -> None:
    run_id, call_id = _waiting(api)
    api.runtime.handle({"action": "await_approval", "run_id": run_id, "depth": 0, "task_token": "token-1"})
    first = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    again = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    assert (again.status, again.body) == (200, first.body)
    assert world.orchestrator.resumed == [("token-1", {"run_id": run_id})]
    assert len(world.deps.audit.query("alice", action="approval").records) == 1


@pytest.mark.usefixtures("master")
def test_the_same_answer_after_the_run_went_on_says_where_it_is(api: Api) -> None:
    run_id, call_id = _waiting(api)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "deny"})
    step_event(api, run_id)
    again = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "deny"})
    assert (again.status, again.body["status"], again.body["pending"]) == (200, "succeeded", [])


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
    run_id = start(api, "hello")["run_id"]
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
    # And the only audit records are the preview's memory reads (action "preview", issue 12.7)
    records = world.deps.audit.query("alice").records
    assert records and {(r.action, r.detail["via"]) for r in records} == {("preview", "preview")}


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
