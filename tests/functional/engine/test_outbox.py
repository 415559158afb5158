"""A queue failure never loses a memory write: the jobs wait in the run's outbox for the redrive."""

from __future__ import annotations

from mneme.engine.memory_io.redrive import redrive_outbox
from mneme.models.run import RunStatus
from mneme.runtime import Runtime
from tests.functional.engine.conftest import add_agent, run

LONG = "Please remember that the release train leaves every second Tuesday at noon, starting next month."


def test_refused_jobs_are_kept_in_the_outbox_with_a_warning(world) -> None:
    # Given an auto-writing agent and a queue that is down
    add_agent(world, memory_policy={"allow_write": True})
    world.queue.fail = True
    # When a run succeeds
    result = run(world, LONG)
    # Then the run succeeded, warned, and its two jobs wait in the outbox
    assert result.run.status is RunStatus.SUCCEEDED
    warnings = [e.data["message"] for e in world.deps.runs.list_events(result.run.run_id) if e.type == "warning"]
    assert any("kept for the redrive" in w for w in warnings)
    ((run_id, jobs),) = world.deps.runs.list_outbox()
    assert run_id == result.run.run_id and [j["metadata"]["source"] for j in jobs] == ["run_input", "run_output"]


def test_the_redrive_queues_them_once_the_queue_is_back(world) -> None:
    add_agent(world, memory_policy={"allow_write": True})
    world.queue.fail = True
    result = run(world, LONG)
    world.queue.fail = False
    report = Runtime(world.deps).handle({"action": "redrive"})
    assert report == {"runs": 1, "jobs": 2, "remaining": 0}
    assert {job.metadata["run_id"] for job in world.queue.jobs} == {result.run.run_id}
    assert world.deps.runs.list_outbox() == []


def test_a_redrive_while_the_queue_is_still_down_keeps_the_outbox(world) -> None:
    add_agent(world, memory_policy={"allow_write": True})
    world.queue.fail = True
    run(world, LONG)
    assert redrive_outbox(world.deps).remaining == 1
    assert len(world.deps.runs.list_outbox()) == 1
