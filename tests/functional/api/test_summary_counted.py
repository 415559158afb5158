"""The rolling summary's model call (SPEC §4) is one of the run's model calls (SPEC §2: "for each model call the
exact request"): ``GET /v1/runs/{id}`` counts it in ``model_calls`` and in the budget's ``used``, and a run
tree's ``max_model_calls`` limits it like any other call, so a team capping model calls is never misled."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.run_support import events_of, fill_chat, start, summarizing_world
from tests.support.deps import World


@pytest.fixture
def world() -> World:
    return summarizing_world()


def _calls(api: Api, run_id: str) -> list[dict[str, object]]:
    return [e for e in events_of(api, run_id) if e["type"] == "model_call"]


def test_the_summary_call_counts_in_the_runs_model_calls_and_budget(api: Api) -> None:
    # Given a chat of 42 stored messages: more than the 40 the summary allows uncovered
    fill_chat(api, 21)
    # When one more run continues it (a summary call, then the run's own call)
    run = start(api, "and now?", chat_id="c1")
    # Then the run reports both calls, as its events do
    assert len(_calls(api, run["run_id"])) == 2
    view = api.get(f"/v1/runs/{run['run_id']}").body
    assert view["model_calls"] == 2
    assert view["budget"]["used"]["model_calls"] == 2


def test_a_run_without_a_summary_counts_only_its_own_call(api: Api) -> None:
    fill_chat(api, 20)
    run = start(api, "and now?", chat_id="c1")
    view = api.get(f"/v1/runs/{run['run_id']}").body
    assert view["model_calls"] == 1 == len(_calls(api, run["run_id"]))
    assert view["budget"]["used"]["model_calls"] == 1


def test_a_budget_of_two_model_calls_pays_the_summary_and_the_answer(api: Api) -> None:
    # Given a chat that needs a summary, and a run limited to 2 model calls
    fill_chat(api, 21)
    reply = api.post(
        "/v1/runs", {"agent_id": "master", "input": "and now?", "chat_id": "c1", "budget": {"max_model_calls": 2}}
    )
    # Then both calls are made and the run answers
    assert reply.status == 200 and reply.body["status"] == "succeeded", reply.text
    assert [e.get("purpose") for e in _calls(api, reply.body["run_id"])] == ["summary", None]
    assert api.get("/v1/chats/c1").body["summary_covers"] == 40


def test_a_budget_of_one_model_call_keeps_it_for_the_answer_not_the_summary(api: Api) -> None:
    # Given a chat that needs a summary, and a run limited to 1 model call
    fill_chat(api, 21)
    reply = api.post(
        "/v1/runs", {"agent_id": "master", "input": "and now?", "chat_id": "c1", "budget": {"max_model_calls": 1}}
    )
    # Then the summary is not made (a warning names the limit), and the one call answers
    assert reply.status == 200 and reply.body["status"] == "succeeded", reply.text
    run_id = reply.body["run_id"]
    assert [e.get("purpose") for e in _calls(api, run_id)] == [None]
    warnings = [e["message"] for e in events_of(api, run_id) if e["type"] == "warning"]
    assert any("rolling summary" in w and "max_model_calls" in w for w in warnings), warnings
    assert api.get(f"/v1/runs/{run_id}").body["model_calls"] == 1
    assert api.get("/v1/chats/c1").body["summary_covers"] == 0
