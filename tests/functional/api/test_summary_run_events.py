"""A run that compresses its chat's history still reports ``run_started`` first (SPEC §10.2): the summary's
``model_call`` (and a failed summary's ``warning``) belong to the run and come after its start."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.run_support import events_of, fill_chat, start, summarizing_world
from tests.support.deps import World


@pytest.fixture
def world() -> World:
    return summarizing_world()


def test_the_run_that_compresses_the_history_starts_its_events_with_run_started(api: Api) -> None:
    # Given a chat of 42 stored messages: more than the 40 the summary allows uncovered
    fill_chat(api, 21)
    # When one more run continues it
    run = start(api, "and now?", chat_id="c1")
    # Then the history was summarized in this run, and its events still begin with run_started
    types = [e["type"] for e in events_of(api, run["run_id"])]
    summaries = [e for e in events_of(api, run["run_id"]) if e.get("purpose") == "summary"]
    assert len(summaries) == 1, types
    assert types[0] == "run_started", types
    assert types.index("model_call") > 0
    assert api.get("/v1/chats/c1").body["summary_covers"] == 40


def test_a_run_that_needs_no_summary_makes_no_summary_call(api: Api) -> None:
    # Given a chat of exactly 40 stored messages: not more than the limit
    fill_chat(api, 20)
    # When one more run continues it
    run = start(api, "and now?", chat_id="c1")
    # Then nothing was summarized and run_started is still first
    events = events_of(api, run["run_id"])
    assert [e for e in events if e.get("purpose") == "summary"] == []
    assert events[0]["type"] == "run_started"
    assert api.get("/v1/chats/c1").body["summary_covers"] == 0
