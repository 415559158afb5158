"""A run that ends while children it created wait to be started (issue 15): nothing will start them, so they are
cancelled with the run's end and leave the tree's active-children count — before, a run aborted by its tool-call
limit after ten delegations left ten children ``queued`` until the sweeper (~3.5 minutes) and the count at 10."""

from __future__ import annotations

from mneme.engine.runs.step_end import StepResult
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World

FAN_OUT = "\n".join(f"/delegate writer :: fan {n}" for n in range(60))  # more calls than a run may make


def _aborted(world: World) -> StepResult:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    add_agent(world, "writer", label="Writer")
    result = run(world, FAN_OUT, tool_approval="granted")
    assert result.run.status is RunStatus.FAILED and "tool calls" in (result.run.error or "")
    return result


def test_the_children_a_run_aborted_with_are_cancelled_not_left_queued(world: World) -> None:
    result = _aborted(world)
    children = [world.deps.runs.get_run(child_id) for child_id in result.run.children]
    assert children, "the run started delegations before its limit"
    assert {child.status for child in children if child is not None} == {RunStatus.CANCELLED}
    assert {child.error for child in children if child is not None} == {
        f"not started: run {result.run.run_id} ended failed"
    }
    assert world.orchestrator.started == []


def test_the_cancelled_children_leave_the_trees_active_count(world: World) -> None:
    result = _aborted(world)
    usage = world.deps.ledger.read(result.run.run_id)
    assert usage is not None and usage.active == 0


def test_a_run_that_waits_for_its_children_keeps_them_queued_for_the_state_machine(world: World) -> None:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    add_agent(world, "writer", label="Writer")
    result = run(world, "/delegate writer :: Draft a haiku", tool_approval="granted")
    (child,) = [world.deps.runs.get_run(child_id) for child_id in result.run.children]
    assert result.outcome == "delegate" and child is not None and child.status is RunStatus.QUEUED
