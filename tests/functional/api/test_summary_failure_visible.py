"""A failed rolling summary call (SPEC §4) never fails the run, but like any failed model call it stays
visible: ``GET /v1/runs/{id}/context`` answers the request it sent (marked ``"purpose": "summary"``, in call
order) and the run's ``warning`` event names that request and the error."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.summarizer import SUMMARY_INSTRUCTION, ModelSummarizer
from mneme.models.run import Usage
from tests.fakes.model import ScriptedModel, text_response
from tests.fakes.scripted import failing_model
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, fill_chat, start
from tests.support.deps import World, make_world


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel())
    world.deps.summarizer = ModelSummarizer(failing_model(), "offline", provider="offline")
    add_agent(world, "master", label="Master")
    return world


def _requests(api: Api, run_id: str) -> list[dict[str, Any]]:
    reply = api.get(f"/v1/runs/{run_id}/context")
    assert reply.status == 200, reply.text
    requests: list[dict[str, Any]] = reply.body["requests"]
    return requests


def test_a_failed_summary_call_shows_its_request_in_the_runs_context(api: Api) -> None:
    # Given a chat that needs a summary, and a summary model that refuses every request
    fill_chat(api, 21)
    # When one more run continues it
    run = start(api, "and now?", chat_id="c1")
    # Then the run still answers, and its context holds the failed summary request first, then its own
    assert run["status"] == "succeeded"
    summary, own = _requests(api, run["run_id"])
    assert summary["purpose"] == "summary" and summary["system"] == [{"text": SUMMARY_INSTRUCTION}]
    assert "purpose" not in own
    # and the warning names that request and the error; no model_call event claims the call succeeded
    events = events_of(api, run["run_id"])
    warning = next(e for e in events if e["type"] == "warning" and "rolling summary failed" in e["message"])
    assert (warning["purpose"], warning["request_seq"]) == ("summary", 1)
    assert "the model refused the request" in warning["message"]
    calls = [e for e in events if e["type"] == "model_call"]
    assert [(e.get("purpose"), e["request_seq"]) for e in calls] == [(None, 2)]
    assert api.get("/v1/chats/c1").body["summary_covers"] == 0


def test_a_run_whose_chat_needs_no_summary_records_no_summary_request(api: Api) -> None:
    fill_chat(api, 20)
    run = start(api, "and now?", chat_id="c1")
    assert ["purpose" in r for r in _requests(api, run["run_id"])] == [False]
    assert [e for e in events_of(api, run["run_id"]) if e["type"] == "warning"] == []


def test_an_empty_summary_is_a_call_made_and_counted_but_not_stored(api: Api, world: World) -> None:
    # Given a summary model that answers with blank text, having read 300 tokens
    blank = text_response("   ", usage=Usage(input_tokens=300, output_tokens=2))
    world.deps.summarizer = ModelSummarizer(ScriptedModel(default=blank), "offline", provider="offline")
    fill_chat(api, 21)
    # When one more run continues the chat
    run = start(api, "and now?", chat_id="c1")
    # Then the summary call is one of the run's model calls (its tokens counted), with a warning, and no summary
    events = events_of(api, run["run_id"])
    calls = [e for e in events if e["type"] == "model_call"]
    assert (calls[0].get("purpose"), calls[0]["usage"]["input_tokens"]) == ("summary", 300)
    assert api.get(f"/v1/runs/{run['run_id']}").body["model_calls"] == 2
    assert any("empty summary" in e.get("message", "") for e in events if e["type"] == "warning")
    assert api.get("/v1/chats/c1").body["summary_covers"] == 0
