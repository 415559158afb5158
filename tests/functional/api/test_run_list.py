"""GET /v1/runs over HTTP (issue 33.3): the caller's root runs with their tree's status and cost, failed ones
too; filters and paging as query parameters; another user's runs never listed; invalid input a 400."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import start
from tests.functional.engine.limits_support import LOOKUP, lookup_answer, lookup_lines
from tests.support.deps import World, make_world


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel(), tools=lookup_answer)
    add_agent(world, external_tools=[LOOKUP])
    add_agent(world, "other")
    add_agent(world, "master", owner="bob")
    return world


def _listed(api: Api, user: str = "alice", **query: str) -> dict[str, Any]:
    reply = api.get("/v1/runs", user=user, query=query or None)
    assert reply.status == 200, reply.text
    body: dict[str, Any] = reply.body
    return body


def _ids(api: Api, user: str = "alice", **query: str) -> list[str]:
    return [run["run_id"] for run in _listed(api, user, **query)["runs"]]


def test_a_failed_run_is_listed_with_its_status_and_error(api: Api) -> None:
    # When a run of alice's fails (the same tool call repeated: the loop is aborted)
    failed = start(api, lookup_lines(7, 7, 7, 7))
    ok = start(api, "hello")
    assert failed["status"] == "failed"
    # Then both are listed, newest first, the failed one with its status and error
    body = _listed(api)
    runs = {run["run_id"]: run for run in body["runs"]}
    assert list(runs) == [ok["run_id"], failed["run_id"]]
    assert runs[failed["run_id"]]["status"] == "failed"
    assert runs[failed["run_id"]]["error"].startswith("RunAborted: ")
    assert body["cursor"] is None


def test_the_status_filter_finds_the_failed_runs(api: Api) -> None:
    failed = start(api, lookup_lines(7, 7, 7, 7))
    start(api, "hello")
    assert _ids(api, status="failed") == [failed["run_id"]]


def test_the_agent_and_chat_filters(api: Api) -> None:
    first = start(api, "hello")
    second = start(api, "again", chat_id=first["chat_id"])
    other = api.post("/v1/runs", {"agent_id": "other", "input": "hi"}).body
    assert _ids(api, agent_id="other") == [other["run_id"]]
    assert _ids(api, chat_id=first["chat_id"]) == [second["run_id"], first["run_id"]]


def test_since_and_until_take_iso_times(api: Api, world: World) -> None:
    early = start(api, "early")
    world.clock.advance(hours=1)
    late = start(api, "late")
    assert _ids(api, since="2026-11-30T10:00:00Z") == [late["run_id"]]
    assert _ids(api, until="2026-11-30T10:00:00") == [early["run_id"]]  # no offset: UTC


def test_a_date_alone_as_until_includes_its_whole_day(api: Api, world: World) -> None:
    # a date means its whole day (UTC): "until 2026-11-30" lists that day's runs, not the ones before it
    run = start(api, "today")["run_id"]
    assert _ids(api, until="2026-11-30") == [run]
    assert _ids(api, since="2026-11-30", until="2026-11-30") == [run]
    assert _ids(api, until="2026-11-29") == []
    assert _ids(api, since="2026-12-01") == []


def test_pages_follow_the_cursor(api: Api, world: World) -> None:
    started = []
    for n in range(3):
        world.clock.advance(seconds=1)
        started.append(start(api, f"run {n}")["run_id"])
    first = _listed(api, limit="2")
    second = _listed(api, limit="2", cursor=str(first["cursor"]))
    assert [r["run_id"] for r in first["runs"]] == started[:0:-1]
    assert [r["run_id"] for r in second["runs"]] == started[:1]
    assert second["cursor"] is None


def test_another_users_runs_are_never_listed(api: Api) -> None:
    mine = start(api, "hello")
    theirs = api.post("/v1/runs", {"agent_id": "master", "input": "hi"}, user="bob").body
    assert _ids(api) == [mine["run_id"]]
    assert _ids(api, user="bob") == [theirs["run_id"]]
    assert _ids(api, user="carol") == []


def test_a_listed_run_carries_its_trees_usage_and_cost(api: Api) -> None:
    run = start(api, "hello")
    (listed,) = _listed(api)["runs"]
    assert listed["tree_usage"] == run["tree_usage"]
    assert listed["cost_usd"] == run["tree_usage"]["cost_usd"]
    assert (listed["input"], listed["children"]) == ("hello", 0)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"status": "exploded"}, "status"),
        ({"since": "yesterday"}, "since"),
        ({"limit": "0"}, "limit"),
        ({"cursor": "bm90LWEtY3Vyc29y"}, "cursor"),
        ({"since": "2026-11-30T10:00:00Z", "until": "2026-11-30T09:00:00Z"}, "since"),
    ],
)
def test_invalid_parameters_answer_400_naming_the_field(api: Api, query: dict[str, str], field: str) -> None:
    reply = api.get("/v1/runs", query=query)
    assert reply.status == 400
    assert (reply.body["error"], reply.body["field"]) == ("invalid_input", field)


def test_listing_needs_a_token(api: Api) -> None:
    assert api.get("/v1/runs", user=None).status == 401


def test_the_openapi_document_describes_the_listing(api: Api) -> None:
    document = json.loads(api.get("/v1/openapi.json", user=None).text)
    operation = document["paths"]["/v1/runs"]["get"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    assert names == {"status", "agent_id", "chat_id", "since", "until", "limit", "cursor"}
    assert "RunListView" in operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]


def test_every_figure_of_a_listed_run_is_declared_in_the_openapi_document(api: Api) -> None:
    # Given a run of alice's, listed
    start(api, "hello")
    listed = _listed(api)["runs"][0]
    # Then the documented row (GET /v1/openapi.json) declares each of its keys, model_calls included
    document = api.get("/v1/openapi.json", user=None).body
    declared = document["components"]["schemas"]["RunSummaryView"]["properties"]
    assert set(listed) - set(declared) == set()
    assert "model_calls" in declared


def test_a_listed_run_counts_its_model_calls_as_get_run_does(api: Api) -> None:
    # Given a run that called the model twice (a tool call, then its answer)
    run = start(api, lookup_lines(7))
    shown = api.get(f"/v1/runs/{run['run_id']}").body
    assert shown["model_calls"] == 2
    # Then its listed row counts the same model calls as GET /v1/runs/{id}, not fewer or more
    assert _listed(api)["runs"][0]["model_calls"] == shown["model_calls"]
