"""Tool approval through the state machine's task token (SPEC §7)."""

from __future__ import annotations

import pytest

from mneme.engine.runs import approvals
from mneme.errors import NotFound
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import ALICE, BOB, add_agent, run

SEARCH = "/search What do I like?"


def _prompted(machine, text: str = SEARCH):
    world = machine.world
    add_agent(world, tools=["memory-search"], memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.memory"]})
    result = run(world, text, tool_approval="prompt")
    waiting = machine.wait_status(result.run.run_id, "waiting_approval")
    return world, waiting


def _wait_token(machine, run_id: str) -> None:
    import time

    for _ in range(400):
        if machine.world.deps.runs.list_marks(run_id, "token"):
            return
        time.sleep(0.05)
    raise AssertionError("the state machine never stored its task token")


def _first_call(world, run_id: str) -> str:
    requested = next(e for e in world.deps.runs.list_events(run_id) if e.type == "approval_requested")
    return str(requested.data["calls"][0]["call_id"])


def test_a_prompt_mode_run_waits_with_the_pending_calls_listed(machine) -> None:
    world, waiting = _prompted(machine)
    events = world.deps.runs.list_events(waiting.run_id)
    requested = [e for e in events if e.type == "approval_requested"]
    assert len(requested) == 1
    assert [c["tool"] for c in requested[0].data["calls"]] == ["memory-search"]
    assert waiting.status is RunStatus.WAITING_APPROVAL


def test_the_owners_once_resumes_the_run(machine) -> None:
    world, waiting = _prompted(machine)
    _wait_token(machine, waiting.run_id)
    call_id = next(e for e in world.deps.runs.list_events(waiting.run_id) if e.type == "approval_requested").data[
        "calls"
    ][0]["call_id"]
    approvals.decide(world.deps, ALICE, waiting.run_id, call_id, "once")
    done = machine.wait(waiting.run_id)
    assert done.status is RunStatus.SUCCEEDED
    assert "memory-search" in (done.output or "") and "Error" not in (done.output or "")
    assert [r.detail["decision"] for r in world.deps.audit.query("alice", action="approval").records] == ["once"]


def test_another_users_answer_is_a_404(machine) -> None:
    world, waiting = _prompted(machine)
    call_id = next(e for e in world.deps.runs.list_events(waiting.run_id) if e.type == "approval_requested").data[
        "calls"
    ][0]["call_id"]
    with pytest.raises(NotFound):
        approvals.decide(world.deps, BOB, waiting.run_id, call_id, "once")


def test_deny_gives_the_model_a_tool_error(machine) -> None:
    world, waiting = _prompted(machine)
    _wait_token(machine, waiting.run_id)
    call_id = next(e for e in world.deps.runs.list_events(waiting.run_id) if e.type == "approval_requested").data[
        "calls"
    ][0]["call_id"]
    approvals.decide(world.deps, ALICE, waiting.run_id, call_id, "deny")
    done = machine.wait(waiting.run_id)
    assert "a person denied this tool call" in (done.output or "")


def test_always_is_not_asked_again_in_the_same_run(machine) -> None:
    # Given a script that searches twice in one run (two turns), approved "always" the first time
    world, waiting = _prompted(
        machine, '/tool memory-search {"query": "first"}\n/tool memory-search {"query": "second"}'
    )
    _wait_token(machine, waiting.run_id)
    requested = [e for e in world.deps.runs.list_events(waiting.run_id) if e.type == "approval_requested"]
    first = requested[0].data["calls"][0]["call_id"]
    approvals.decide(world.deps, ALICE, waiting.run_id, first, "always")
    done = machine.wait(waiting.run_id)
    # Then one question was asked for both calls, and the run finished
    assert done.status is RunStatus.SUCCEEDED
    assert len([e for e in world.deps.runs.list_events(done.run_id) if e.type == "approval_requested"]) == 1


def _store_blip_once(machine, action: str) -> list[str]:
    """The run function's ``action`` meets a store throttle once (the error a DynamoDB blip raises)."""
    from mneme.errors import StoreUnavailable
    from mneme_local import sfn_emulation

    original = sfn_emulation.HANDLERS[machine.function]
    seen: list[str] = []

    def blip(event, ctx):
        if event.get("action") == action and not seen:
            seen.append(action)
            raise StoreUnavailable("DynamoDB is briefly unavailable")
        return original(event, ctx)

    sfn_emulation.HANDLERS[machine.function] = blip
    return seen


def test_a_store_blip_while_the_token_is_stored_is_retried_not_a_failed_run(machine) -> None:
    # Given the store fails once as the state machine hands its task token to the run function
    seen = _store_blip_once(machine, "await_approval")
    world, waiting = _prompted(machine)
    # When the state machine retries the wait (as it retries the step for the same error)
    _wait_token(machine, waiting.run_id)
    # Then the run still waits for its person, who can approve it to the end
    assert seen == ["await_approval"]
    assert world.deps.runs.get_run(waiting.run_id).status is RunStatus.WAITING_APPROVAL
    approvals.decide(world.deps, ALICE, waiting.run_id, _first_call(world, waiting.run_id), "once")
    assert machine.wait(waiting.run_id).status is RunStatus.SUCCEEDED
