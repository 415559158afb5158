"""The fast path has a time budget (SPEC §1): past it the run is checkpointed and continued by a step."""

from __future__ import annotations

import itertools

from mneme.engine.runs.service import step
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run


def test_a_run_past_its_budget_is_handed_off_and_a_step_finishes_it(world) -> None:
    # Given a clock that jumps 100 s between the start and the first model call
    ticks = itertools.chain([0.0], itertools.repeat(100.0))
    world.deps.monotonic = lambda: next(ticks)
    add_agent(world)
    # When the run starts
    started = run(world, "a long job")
    # Then it was checkpointed and handed to the state machine without a model call
    assert (started.outcome, started.run.status) == ("continue", RunStatus.RUNNING)
    assert world.orchestrator.started == [(started.run.run_id, 0)]
    assert world.deps.runs.list_requests(started.run.run_id) == []
    # And a state-machine step (with time to spare) finishes it
    world.deps.monotonic = lambda: 0.0
    finished = step(world.deps, started.run.run_id)
    assert (finished.outcome, finished.run.status, finished.run.output) == (
        "done",
        RunStatus.SUCCEEDED,
        "offline: a long job",
    )


def test_a_retried_step_after_the_run_finished_changes_nothing(world) -> None:
    add_agent(world)
    done = run(world, "hi")
    again = step(world.deps, done.run.run_id)
    assert again.outcome == "done" and again.run.version == done.run.version
    chat = world.deps.chats.get_chat("alice", done.run.chat_id or "")
    assert chat is not None and len(chat.messages) == 2


def test_an_event_triggered_run_in_prompt_mode_denies_tools(world) -> None:
    from mneme.engine.runs.service import start_run
    from mneme.models.run_request import RunRequest
    from tests.functional.engine.conftest import ALICE

    add_agent(world, tools=["memory-search"], memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.memory"]})
    result = start_run(
        world.deps,
        ALICE,
        RunRequest(agent_id="master", input="/search x", tool_approval="prompt"),
        event_triggered=True,
    )
    assert result.run.tool_approval == "denied"
    assert "tool calls are denied" in (result.run.output or "")
