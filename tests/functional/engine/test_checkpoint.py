"""The checkpoint (the run's loop state between steps): typed, versioned, and read back from older releases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from mneme.engine import approvals
from mneme.engine.service import step
from mneme.engine.state import CHECKPOINT_VERSION, LoopState, load_state
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import ALICE, add_agent, run

CHECKPOINTS = Path(__file__).parent / "checkpoints"


def _searcher(world, **fields) -> None:
    add_agent(
        world,
        tools=["memory-search", "delegate-to-agent"],
        delegates=["writer"],
        memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"]},
        **fields,
    )
    add_agent(world, "writer")


def test_a_version_1_checkpoint_loads_with_its_flags_typed() -> None:
    # Given a checkpoint written by the release before the typed layout (flags in an untyped "extra")
    raw = json.loads((CHECKPOINTS / "v1-waiting-approval.json").read_text())
    assert "checkpoint_version" not in raw and raw["extra"]["approval_reported"]
    # When it is read
    state = load_state(raw)
    # Then the flags are typed fields and the layout is today's
    assert state.checkpoint_version == CHECKPOINT_VERSION
    assert state.approval_reported == raw["extra"]["approval_reported"]
    assert [p.call_id for p in state.waiting_approvals] == raw["extra"]["approval_reported"]
    assert "extra" not in state.model_dump() and "model_calls" not in state.model_dump()


def test_a_run_waiting_on_a_version_1_checkpoint_resumes_without_asking_again(world) -> None:
    # Given a run waiting for approval whose stored checkpoint is the older layout
    _searcher(world)
    waiting = run(world, "/search tea\n/delegate writer :: Draft a haiku", tool_approval="prompt").run
    raw = json.loads((CHECKPOINTS / "v1-waiting-approval.json").read_text())
    world.deps.runs.save_checkpoint(waiting.run_id, raw)
    # When the owner answers both calls and the step resumes
    for pending in load_state(raw).waiting_approvals:
        world.deps.runs.put_mark(waiting.run_id, approvals.DECISION_MARK + pending.call_id, {"decision": "once"})
    resumed = step(world.deps, waiting.run_id)
    # Then no second approval request is made, the search ran and the delegation started
    events = world.deps.runs.list_events(waiting.run_id)
    assert [e.type for e in events].count("approval_requested") == 1
    assert resumed.outcome == "delegate" and len(resumed.children) == 1


def test_a_version_2_checkpoint_loads_as_today_s_layout_with_nothing_deferred() -> None:
    # Given a checkpoint written by the release before deferred calls (issue 12.9: checkpoint version 3)
    raw = json.loads((CHECKPOINTS / "v2-waiting-approval.json").read_text())
    assert raw["checkpoint_version"] == 2
    # When it is read
    state = load_state(raw)
    # Then it is today's version, its two pending approvals intact and nothing deferred
    assert (state.checkpoint_version, CHECKPOINT_VERSION) == (3, 3)
    assert [p.call_id for p in state.waiting_approvals] == raw["approval_reported"]
    assert state.deferred == []


def test_a_run_waiting_on_a_version_2_checkpoint_resumes(world) -> None:
    _searcher(world)
    waiting = run(world, "/search tea\n/delegate writer :: Draft a haiku", tool_approval="prompt").run
    raw = json.loads((CHECKPOINTS / "v2-waiting-approval.json").read_text())
    world.deps.runs.save_checkpoint(waiting.run_id, raw)
    for pending in load_state(raw).waiting_approvals:
        world.deps.runs.put_mark(waiting.run_id, approvals.DECISION_MARK + pending.call_id, {"decision": "once"})
    resumed = step(world.deps, waiting.run_id)
    assert resumed.outcome == "delegate" and len(resumed.children) == 1
    assert load_state(world.deps.runs.load_checkpoint(waiting.run_id) or {}).checkpoint_version == CHECKPOINT_VERSION


def test_a_checkpoint_from_a_newer_release_is_refused() -> None:
    with pytest.raises(ValidationError, match="newer than this release"):
        load_state({"checkpoint_version": CHECKPOINT_VERSION + 1, "user_text": "hi"})


def test_a_new_checkpoint_carries_the_current_version(world) -> None:
    _searcher(world)
    waiting = run(world, "/search tea", tool_approval="prompt").run
    raw = world.deps.runs.load_checkpoint(waiting.run_id)
    assert raw is not None and raw["checkpoint_version"] == CHECKPOINT_VERSION
    assert LoopState.model_validate(raw).approval_reported


def test_a_denied_call_is_reported_once_when_a_later_call_of_its_turn_is_approved(world) -> None:
    # Given a turn of two tool calls waiting for a person
    _searcher(world)
    waiting = run(world, "/search tea\n/search coffee", tool_approval="prompt").run
    first, second = load_state(world.deps.runs.load_checkpoint(waiting.run_id) or {}).waiting_approvals
    # When the person denies the first and approves the second, and the run resumes
    approvals.decide(world.deps, ALICE, waiting.run_id, first.call_id, "deny")
    approvals.decide(world.deps, ALICE, waiting.run_id, second.call_id, "once")
    finished = step(world.deps, waiting.run_id).run
    # Then the denied call has exactly one error event, the approved one succeeded
    events = [e.data for e in world.deps.runs.list_events(waiting.run_id) if e.type == "tool_call"]
    denied = [e for e in events if e["call_id"] == first.call_id and e["status"] == "error"]
    assert len(denied) == 1
    assert [e["status"] for e in events if e["call_id"] == second.call_id] == ["requested", "success"]
    assert finished.status is RunStatus.SUCCEEDED
