"""The rolling summary's model call is inside the run's time budget (issue 12.9): on the fast path it gets
what is left of the 20 s, and it is not made when no model call could be."""

from __future__ import annotations

import itertools

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.models.chat import Chat, TextMessage
from tests.fakes.summarizer import FakeSummarizer
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel(), MNEME_SUMMARY_TRIGGER_MESSAGES="2")
    world.deps.summarizer = FakeSummarizer()
    add_agent(world)
    now = world.clock.now()
    messages = [TextMessage(role=r, text=f"{r} {i}") for i in range(3) for r in ("user", "assistant")]
    world.deps.chats.create_chat(Chat(chat_id="c1", user_id="alice", created_at=now, updated_at=now, messages=messages))
    return world


def _elapsed_after_start(world: World, seconds: float) -> None:
    """The fast path's budget starts at 0; every later reading of the clock is ``seconds``."""
    ticks = itertools.chain([0.0], itertools.repeat(seconds))
    world.deps.monotonic = lambda: next(ticks)


def test_the_summary_gets_what_is_left_of_the_fast_paths_budget(world: World) -> None:
    # Given 15 of the fast path's 20 s spent when the history is compressed
    _elapsed_after_start(world, 15.0)
    # When a run continues the long chat
    run(world, "and now?", chat_id="c1")
    # Then the summary call was given the 5 s left, not its own 8 s
    summarizer = world.deps.summarizer
    assert isinstance(summarizer, FakeSummarizer)
    assert [call.timeout_seconds for call in summarizer.calls] == [5.0]


def test_with_time_to_spare_the_summary_is_offered_all_that_is_left(world: World) -> None:
    _elapsed_after_start(world, 1.0)
    run(world, "and now?", chat_id="c1")
    summarizer = world.deps.summarizer
    assert isinstance(summarizer, FakeSummarizer)
    assert [call.timeout_seconds for call in summarizer.calls] == [19.0]  # the adapter caps it at 8 s (unit test)


def test_with_no_time_left_for_a_model_call_no_summary_is_made(world: World) -> None:
    # Given 18.5 s spent: less than a model call's minimum is left
    _elapsed_after_start(world, 18.5)
    # When a run continues the long chat
    started = run(world, "and now?", chat_id="c1")
    # Then no summary call was made, the history was kept with a warning, and the run was handed off
    summarizer = world.deps.summarizer
    assert isinstance(summarizer, FakeSummarizer)
    assert summarizer.calls == []
    events = world.deps.runs.list_events(started.run.run_id)
    warnings = [e.data.get("message", "") for e in events if e.type == "warning"]
    assert any("no time is left" in w for w in warnings), warnings
    assert started.outcome == "continue"
