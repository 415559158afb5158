"""``GET /v1/runs/{id}/context`` answers one request per model call, in call order (SPEC §10): a run that
compresses its chat (SPEC §4) made the summary call before its own, so that request comes first, marked
``"purpose": "summary"``; the run's own requests carry no ``purpose`` and stay what they were."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.summarizer import SUMMARY_INSTRUCTION
from mneme.history import SUMMARY_PREFIX
from tests.functional.api.conftest import Api
from tests.functional.api.run_support import events_of, fill_chat, start, summarizing_world
from tests.support.deps import World


@pytest.fixture
def world() -> World:
    return summarizing_world()


def _requests(api: Api, run_id: str) -> list[dict[str, Any]]:
    reply = api.get(f"/v1/runs/{run_id}/context")
    assert reply.status == 200, reply.text
    requests: list[dict[str, Any]] = reply.body["requests"]
    return requests


def _texts(request: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for m in request["messages"] for block in m["content"])


def test_a_run_that_compresses_its_chat_answers_the_summary_request_first(api: Api) -> None:
    # Given a chat of 42 stored messages: more than the 40 the summary allows uncovered
    fill_chat(api, 21)
    # When one more run continues it (a summary call, then the run's own call)
    run = start(api, "and now?", chat_id="c1")
    # Then its context answers both requests in call order: the summary's first, recognisable by its purpose
    summary, own = _requests(api, run["run_id"])
    assert summary["purpose"] == "summary"
    assert summary["system"] == [{"text": SUMMARY_INSTRUCTION}]
    assert "message number 0" in _texts(summary)
    assert "toolConfig" not in summary
    assert "purpose" not in own
    assert SUMMARY_PREFIX in _texts(own) and "and now?" in _texts(own)
    # and each model_call event names its request
    calls = [e for e in events_of(api, run["run_id"]) if e["type"] == "model_call"]
    assert [(e.get("purpose"), e["request_seq"]) for e in calls] == [("summary", 1), (None, 2)]


def test_a_run_without_compression_answers_only_its_own_request(api: Api) -> None:
    # Given a chat of exactly 40 stored messages: not more than the limit
    fill_chat(api, 20)
    # When one more run continues it
    run = start(api, "and now?", chat_id="c1")
    # Then its context holds its one request, without a purpose
    requests = _requests(api, run["run_id"])
    assert len(requests) == 1
    assert "purpose" not in requests[0]
    assert "and now?" in _texts(requests[0])
