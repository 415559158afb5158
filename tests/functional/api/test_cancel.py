"""``POST /v1/runs/{id}/cancel`` (issue 15.3) through the handler: the run and its unfinished descendants end
``cancelled``, audited, their executions stopped, pending approvals void; idempotent; a step in flight
yields without committing its answer."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.engine.runs import cancel, service
from mneme.engine.runs.owner import own_run
from mneme.models.policy import MemoryPolicy
from mneme.models.run import RunStatus
from mneme.models.user import Caller
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World, make_world

WRITES = MemoryPolicy(allow_write=True)


def _waiting(api: Api) -> tuple[str, str]:
    run_id = start(api, "/search cats", tool_approval="prompt")["run_id"]
    requested = next(e for e in events_of(api, run_id) if e["type"] == "approval_requested")
    return run_id, str(requested["calls"][0]["call_id"])


def _delegating(api: Api, world: World, children: int = 2) -> dict[str, Any]:
    add_agent(world, "helper", memory_policy=WRITES)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"], memory_policy=WRITES)
    text = "\n".join(
        f"/delegate helper :: job number {i} with a long enough input to be worth remembering" for i in range(children)
    )
    return start(api, text)


@pytest.mark.usefixtures("master")
def test_cancelling_a_run_waiting_for_approval_ends_it_cancelled_and_voids_the_approval(api: Api, world: World) -> None:
    # Given a run waiting for a person, its execution started by the hand-off
    run_id, call_id = _waiting(api)
    # When alice cancels it
    reply = api.post(f"/v1/runs/{run_id}/cancel", None)
    # Then it is cancelled, its execution stopped, and the approval can no longer be answered
    assert reply.status == 200, reply.text
    assert reply.body == {"run_id": run_id, "status": "cancelled", "cancelled": [run_id], "stopped_executions": 1}
    assert world.orchestrator.stopped == [(run_id, f"execution-{run_id}")]
    assert api.get(f"/v1/runs/{run_id}").body["status"] == "cancelled"
    answer = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    assert answer.status == 409
    events = events_of(api, run_id)
    assert [e["type"] for e in events][-2:] == ["cancelled", "completed"]
    assert events[-2]["voided_calls"] == [call_id] and events[-1]["status"] == "cancelled"


@pytest.mark.usefixtures("master")
def test_the_approval_wait_is_ended_too_so_no_execution_waits_for_a_person(api: Api, world: World) -> None:
    # Given the state machine waits on the approval's task token
    run_id, _ = _waiting(api)
    api.runtime.handle({"action": "await_approval", "run_id": run_id, "depth": 0, "task_token": "token-1"})
    # When the run is cancelled
    api.post(f"/v1/runs/{run_id}/cancel", None)
    # Then its wait is completed (were the stop to fail, the execution resumes, meets the cancel and ends)
    assert world.orchestrator.resumed == [("token-1", {"run_id": run_id})]
    assert step_event(api, run_id)["outcome"] == "done"


@pytest.mark.usefixtures("master")
def test_a_cancel_is_audited_once_per_run(api: Api, world: World) -> None:
    run_id, _ = _waiting(api)
    api.post(f"/v1/runs/{run_id}/cancel", None)
    records = world.deps.audit.query("alice", action="cancel").records
    assert [(r.run_id, r.detail["reason"]) for r in records] == [(run_id, "cancelled by its owner")]


@pytest.mark.usefixtures("master")
def test_cancelling_again_answers_the_cancelled_run_and_cancels_nothing_more(api: Api, world: World) -> None:
    run_id, _ = _waiting(api)
    api.post(f"/v1/runs/{run_id}/cancel", None)
    again = api.post(f"/v1/runs/{run_id}/cancel", None)
    assert again.status == 200
    assert (again.body["status"], again.body["cancelled"]) == ("cancelled", [])
    assert len(world.deps.audit.query("alice", action="cancel").records) == 1
    assert [e["type"] for e in events_of(api, run_id)].count("cancelled") == 1


@pytest.mark.usefixtures("master")
def test_a_finished_run_cannot_be_cancelled(api: Api) -> None:
    run_id = start(api, "hello")["run_id"]
    reply = api.post(f"/v1/runs/{run_id}/cancel", None)
    assert reply.status == 409
    assert "succeeded" in reply.body["message"]
    assert api.get(f"/v1/runs/{run_id}").body["status"] == "succeeded"


@pytest.mark.usefixtures("master")
def test_another_user_cannot_cancel_a_run(api: Api, world: World) -> None:
    run_id, _ = _waiting(api)
    assert api.post(f"/v1/runs/{run_id}/cancel", None, user="bob").status == 404
    assert api.get(f"/v1/runs/{run_id}").body["status"] == "waiting_approval"
    assert world.orchestrator.stopped == []


def test_cancelling_a_root_cancels_its_unfinished_children(api: Api, world: World) -> None:
    # Given a root that delegated two children (queued: their executions have not run yet)
    root_id = _delegating(api, world)["run_id"]
    children = api.get(f"/v1/runs/{root_id}").body["children"]
    # When the root is cancelled
    reply = api.post(f"/v1/runs/{root_id}/cancel", None)
    # Then all three are cancelled, the children "with run <root>"
    assert reply.body["cancelled"] == [root_id, *children]
    for child in children:
        body = api.get(f"/v1/runs/{child}").body
        assert (body["status"], body["error"]) == ("cancelled", f"cancelled with run {root_id}")
    # And a child's step that comes later does nothing: no model call, no memory
    step_event(api, children[0], depth=1)
    assert api.get(f"/v1/runs/{children[0]}").body["status"] == "cancelled"
    assert world.queue.jobs == []


def test_cancelling_a_child_leaves_its_parent_running(api: Api, world: World) -> None:
    root_id = _delegating(api, world)["run_id"]
    first, second = api.get(f"/v1/runs/{root_id}").body["children"]
    api.post(f"/v1/runs/{first}/cancel", None)
    assert api.get(f"/v1/runs/{root_id}").body["status"] == "running"
    step_event(api, second, depth=1)
    step_event(api, root_id)
    root = api.get(f"/v1/runs/{root_id}").body
    # the parent's model saw the cancelled child as a failed delegation, and answered
    assert root["status"] == "succeeded"
    assert "the sub-agent 'helper' was cancelled (cancelled by its owner)" in root["output"]


def test_a_step_in_flight_when_the_cancel_arrives_commits_no_answer() -> None:
    # Given a root that delegated one child, whose model call is under way when the root is cancelled
    holder: dict[str, Any] = {}

    def cancel_meanwhile(request: dict[str, Any]) -> Any:
        cancel.cancel_run(holder["world"].deps, Caller(user_id="alice"), holder["root"])
        return text_response("the child's answer, which must not count")

    model = ScriptedModel(
        [tool_use_response(("delegate-to-agent", {"agent": "helper", "input": "x" * 90})), cancel_meanwhile]
    )
    world = make_world(model)
    holder["world"] = world
    api = Api(world)
    add_agent(world, "helper", memory_policy=WRITES)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"], memory_policy=WRITES)
    root_id = start(api, "delegate please")["run_id"]
    holder["root"] = root_id
    (child_id,) = api.get(f"/v1/runs/{root_id}").body["children"]
    # When the child's step runs (and the cancel lands during its model call)
    result = service.step(world.deps, child_id)
    # Then the step yielded: the child is cancelled with no output, nothing was queued for memory
    assert result.outcome == "done"
    child = own_run(world.deps, Caller(user_id="alice"), child_id)
    assert (child.status, child.output) == (RunStatus.CANCELLED, None)
    assert world.queue.jobs == []
    assert "model_call" not in [e.type for e in world.deps.runs.list_events(child_id)]


def test_children_created_by_a_step_that_meets_the_cancel_are_cancelled_too() -> None:
    # Given a root in the state machine whose next model call delegates again, while it is being cancelled
    holder: dict[str, Any] = {}

    def cancel_then_delegate(request: dict[str, Any]) -> Any:
        cancel.cancel_run(holder["world"].deps, Caller(user_id="alice"), holder["root"])
        return tool_use_response(("delegate-to-agent", {"agent": "helper", "input": "second job"}))

    model = ScriptedModel(
        [tool_use_response(("delegate-to-agent", {"agent": "helper", "input": "first job"})), "child done"]
    )
    world = make_world(model)
    holder["world"] = world
    api = Api(world)
    add_agent(world, "helper")
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"])
    root_id = start(api, "delegate please")["run_id"]
    holder["root"] = root_id
    (first,) = api.get(f"/v1/runs/{root_id}").body["children"]
    service.step(world.deps, first)
    model.add(cancel_then_delegate)
    # When the root's step collects the child and delegates again, meeting the cancel
    result = service.step(world.deps, root_id)
    # Then the root stays cancelled with its old children, and the child created meanwhile is cancelled too
    assert result.outcome == "done" and result.run.status is RunStatus.CANCELLED
    assert result.run.children == [first]
    created = [r for r in world.deps.runs.list_unfinished()]
    assert created == []  # nothing is left queued that no execution would ever run
