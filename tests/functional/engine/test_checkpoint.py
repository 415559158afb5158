"""The checkpoint (the run's loop state between steps): typed, versioned, and read back from older releases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from mneme.engine.runs import approvals
from mneme.engine.runs.service import step
from mneme.engine.runs.state import CHECKPOINT_VERSION, LoopState, load_state
from mneme.models.chat import ReasoningMessage, ToolCallMessage
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
    # Given a checkpoint written before reasoning blocks joined the run's turns (3), deferred calls (4), forks (5)
    # and the run's configuration (6)
    raw = json.loads((CHECKPOINTS / "v2-waiting-approval.json").read_text())
    assert raw["checkpoint_version"] == 2
    # When it is read
    state = load_state(raw)
    # Then it is today's version with the same turns and pending calls, and nothing deferred
    assert (state.checkpoint_version, CHECKPOINT_VERSION) == (6, 6)
    assert [m.model_dump(mode="json") for m in state.turns] == raw["turns"]
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


def test_a_version_3_checkpoint_loads_as_today_s_layout_with_nothing_deferred() -> None:
    # Given a checkpoint written by the release with reasoning turns but before deferred calls
    raw = json.loads((CHECKPOINTS / "v3-waiting-approval.json").read_text())
    assert raw["checkpoint_version"] == 3
    # When it is read
    state = load_state(raw)
    # Then it is today's version, its pending approvals intact and nothing deferred
    assert state.checkpoint_version == CHECKPOINT_VERSION == 6
    assert [p.call_id for p in state.waiting_approvals] == raw["approval_reported"]
    assert state.deferred == [] and state.fork is None


def test_a_run_waiting_on_a_version_3_checkpoint_resumes(world) -> None:
    _searcher(world)
    waiting = run(world, "/search tea\n/delegate writer :: Draft a haiku", tool_approval="prompt").run
    raw = json.loads((CHECKPOINTS / "v3-waiting-approval.json").read_text())
    world.deps.runs.save_checkpoint(waiting.run_id, raw)
    for pending in load_state(raw).waiting_approvals:
        world.deps.runs.put_mark(waiting.run_id, approvals.DECISION_MARK + pending.call_id, {"decision": "once"})
    resumed = step(world.deps, waiting.run_id)
    assert resumed.outcome == "delegate" and len(resumed.children) == 1


def test_reasoning_turns_survive_the_checkpoint_verbatim() -> None:
    # Given loop state whose turns hold a signed and a redacted reasoning block
    signed = ReasoningMessage(text="Let me think.", signature="c2lnbmF0dXJl", run_id="r1")
    redacted = ReasoningMessage(redacted="AAEC/w==", run_id="r1")
    call = ToolCallMessage(call_id="t1", tool="memory-search", arguments={"query": "tea"}, run_id="r1")
    state = LoopState(user_text="hi", turns=[signed, redacted, call])
    # When it is written as JSON and read back
    back = load_state(json.loads(json.dumps(state.model_dump(mode="json"))))
    # Then the blocks are the same, in the same order
    assert back.turns == [signed, redacted, call]
    first, second = (m for m in back.turns[:2] if isinstance(m, ReasoningMessage))
    assert first.to_block() == {
        "reasoningContent": {"reasoningText": {"text": "Let me think.", "signature": "c2lnbmF0dXJl"}}
    }
    assert second.to_block() == {"reasoningContent": {"redactedContent": "AAEC/w=="}}


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
