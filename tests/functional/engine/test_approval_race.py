"""The owner's answer and the state machine's task token may arrive in either order: the run resumes once."""

from __future__ import annotations

from mneme.engine.runs import approvals
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import ALICE, add_agent, run


def _waiting(world) -> tuple[str, str]:
    add_agent(world, tools=["memory-search"], memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.memory"]})
    result = run(world, "/search What do I like?", tool_approval="prompt")
    assert result.run.status is RunStatus.WAITING_APPROVAL
    requested = next(e for e in world.deps.runs.list_events(result.run.run_id) if e.type == "approval_requested")
    return result.run.run_id, requested.data["calls"][0]["call_id"]


def test_an_answer_before_the_token_resumes_when_the_token_arrives(world) -> None:
    run_id, call_id = _waiting(world)
    approvals.decide(world.deps, ALICE, run_id, call_id, "once")
    assert world.orchestrator.resumed == []
    approvals.store_task_token(world.deps, run_id, "token-1")
    assert world.orchestrator.resumed == [("token-1", {"run_id": run_id})]


def test_an_answer_after_the_token_resumes_at_once(world) -> None:
    run_id, call_id = _waiting(world)
    approvals.store_task_token(world.deps, run_id, "token-1")
    approvals.decide(world.deps, ALICE, run_id, call_id, "once")
    assert world.orchestrator.resumed == [("token-1", {"run_id": run_id})]


def test_a_second_answer_to_the_same_call_is_a_conflict(world) -> None:
    import pytest

    from mneme.errors import Conflict

    run_id, call_id = _waiting(world)
    approvals.decide(world.deps, ALICE, run_id, call_id, "deny")
    with pytest.raises(Conflict):
        approvals.decide(world.deps, ALICE, run_id, call_id, "once")
