"""Input a fuzzer sent that answered 500 (and some of it stored anyway): each is now a clear 4xx before anything is
stored, and what is valid still passes. Found by a schemathesis run of ~77,000 cases and hand-written probes."""

from __future__ import annotations

import base64
import json

import pytest

from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
WRITE = "/v1/memory/documents"
BATCH = "/v1/memory/documents:batch"
#: UTC leaves the dates Python can hold: year 0 and year 10000
OUT_OF_RANGE = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00")


@pytest.mark.parametrize("observed_at", OUT_OF_RANGE)
def test_an_observed_at_outside_the_dates_utc_holds_is_a_400_and_stores_nothing(
    api: Api, world: World, observed_at: str
) -> None:
    reply = api.post(WRITE, {"namespace": ALICE, "content": "x", "observed_at": observed_at})
    assert (reply.status, reply.body["field"]) == (400, "observed_at"), reply.text
    assert world.memory.documents == {}


def test_an_observed_at_with_an_offset_inside_the_range_is_stored_in_utc(api: Api, world: World) -> None:
    reply = api.post(WRITE, {"namespace": ALICE, "content": "x", "observed_at": "0002-01-01T10:00:00+09:00"})
    assert reply.status == 201, reply.text
    (doc,) = world.memory.documents.values()
    assert doc.observed_at is not None and doc.observed_at.year == 2


def test_a_batch_item_with_such_an_observed_at_is_refused_alone(api: Api, world: World) -> None:
    items = [{"namespace": ALICE, "content": c, "observed_at": at} for c, at in (("a", OUT_OF_RANGE[0]), ("b", None))]
    results = api.post(BATCH, {"items": items}).body["results"]
    assert [(r["index"], r["status"]) for r in results] == [(0, 400), (1, 201)]
    assert [d.content for d in world.memory.documents.values()] == ["b"]


def test_a_search_as_of_outside_the_range_is_a_400(api: Api) -> None:
    reply = api.post("/v1/memory/search", {"query": "x", "as_of": OUT_OF_RANGE[1]})
    assert (reply.status, reply.body["field"]) == (400, "as_of"), reply.text


@pytest.mark.parametrize("bound", ["since", "until"])
def test_a_run_list_bound_outside_the_range_is_a_400(api: Api, bound: str) -> None:
    reply = api.get("/v1/runs", query={bound: OUT_OF_RANGE[0]})
    assert reply.status == 400, reply.text


def test_a_run_list_bound_inside_it_lists(api: Api) -> None:
    assert api.get("/v1/runs", query={"since": "2026-01-01T00:00:00+14:00"}).status == 200


@pytest.mark.parametrize(
    ("metadata", "why"),
    [
        ('{"k": "\\ud800"}', "lone surrogate"),
        ('{"\\ud800": "v"}', "lone surrogate"),
        ('{"k": NaN}', "NaN or Infinity"),
        ('{"k": [Infinity]}', "NaN or Infinity"),
    ],
)
def test_metadata_that_cannot_be_stored_as_json_text_is_a_400_and_stores_nothing(
    api: Api, world: World, metadata: str, why: str
) -> None:
    body = f'{{"namespace": "{ALICE}", "content": "x", "metadata": {metadata}}}'
    reply = api.post(WRITE, body)
    assert (reply.status, reply.body["field"]) == (400, "metadata"), reply.text
    assert why in reply.body["message"]
    assert world.memory.documents == {}


def test_metadata_of_any_script_is_stored(api: Api, world: World) -> None:
    reply = api.post(WRITE, {"namespace": ALICE, "content": "x", "metadata": {"lieu": "Zürich 🏔", "n": 1.5}})
    assert reply.status == 201, reply.text
    (doc,) = world.memory.documents.values()
    assert (doc.metadata["lieu"], doc.metadata["n"]) == ("Zürich 🏔", 1.5)


@pytest.mark.parametrize(
    "content_type", ["APPLICATION/JSON", "Application/Json; charset=utf-8", "application/merge-patch+json"]
)
def test_json_declared_in_any_case_or_as_a_json_suffix_is_read_as_json(api: Api, content_type: str) -> None:
    reply = api.post("/v1/memory/search", {"query": "x"}, headers={"content-type": content_type})
    assert reply.status == 200, reply.text


@pytest.mark.parametrize("body", ['[{"query": "x"}]', '"x"', "17", "null"])
def test_a_json_body_that_is_not_an_object_is_a_400(api: Api, world: World, body: str) -> None:
    reply = api.post(WRITE, body.replace("query", "content"))
    assert (reply.status, reply.body["field"]) == (400, "body"), reply.text
    assert world.memory.documents == {}


def test_a_documents_cursor_beyond_a_stores_integer_is_a_400(api: Api) -> None:
    cursor = base64.urlsafe_b64encode(b"99999999999999999999|x").decode()
    reply = api.get(WRITE, query={"namespace": ALICE, "cursor": cursor})
    assert (reply.status, reply.body["field"]) == (400, "cursor"), reply.text


def test_one_client_token_on_two_items_of_a_batch_with_other_content_is_a_409_for_the_second(
    api: Api, world: World
) -> None:
    items = [{"namespace": ALICE, "content": c, "client_token": "t1"} for c in ("dupA", "dupB")]
    results = api.post(BATCH, {"items": items}).body["results"]
    assert [(r["index"], r["status"]) for r in results] == [(0, 201), (1, 409)]
    assert [d.content for d in world.memory.documents.values()] == ["dupA"]


def test_one_client_token_on_two_items_with_the_same_content_stores_it_once(api: Api, world: World) -> None:
    items = [{"namespace": ALICE, "content": "same", "client_token": "t1"}] * 2
    results = api.post(BATCH, {"items": items}).body["results"]
    assert [(r["status"], r.get("replayed", False)) for r in results] == [(201, False), (201, True)]
    assert results[0]["ids"] == results[1]["ids"]
    assert len(world.memory.documents) == 1
    assert len(world.deps.audit.query("alice", action="write").records) == 1


def test_the_fixed_bodies_are_still_json_objects_on_the_wire(api: Api) -> None:
    assert json.loads(api.post(WRITE, {"namespace": ALICE, "content": "ok"}).text)["ids"]


def test_an_agent_larger_than_a_dynamodb_item_is_a_413_and_is_not_saved(api: Api) -> None:
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": "x" * 1000} for i in range(450)},
    }
    tool = {
        "name": "big",
        "description": "d",
        "input_schema": schema,
        "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:b",
    }
    reply = api.put("/v1/agents/big", {"label": "Big", "external_tools": [tool]})
    assert reply.status == 413, reply.text
    assert "item too large" in reply.body["message"]
    assert api.get("/v1/agents/big").status == 404


#: 590,000 emoji: 2.4 MB of UTF-8, within the body limit; quoted whole in a message, each escaped to 12 bytes of JSON,
#: they made an error response of 7 MB, over Lambda's 6 MB: API Gateway answered a bare 500
HUGE = "\U0001f600" * 590_000
HUGE_RULES = {"namespace_rules": [{"pattern": HUGE}]}
HUGE_VALUES = [
    ("/v1/me/settings", {"language": HUGE}, "language"),
    ("/v1/agents/huge", {"label": "H", "memory_policy": HUGE_RULES}, "memory_policy"),
    ("/v1/agents/a/tasks/huge", {"name": "n", "memory_policy": HUGE_RULES}, "memory_policy"),
]


@pytest.mark.parametrize(("path", "body", "field"), HUGE_VALUES)
def test_an_error_on_a_huge_value_is_a_400_naming_the_field_that_quotes_only_its_start(
    api: Api, path: str, body: dict[str, object], field: str
) -> None:
    reply = api.put(path, json.dumps(body, ensure_ascii=False))
    assert (reply.status, reply.body["field"].split(".")[0]) == (400, field), reply.text[:300]
    assert len(json.dumps(reply.text)) < LAMBDA_RESPONSE_BYTES
    message = reply.body["message"]
    assert "\U0001f600" * 100 in message and "more characters)" in message, message[-200:]
    assert len(message) < 2_000


def test_an_error_on_a_short_value_still_quotes_it_whole(api: Api) -> None:
    reply = api.put("/v1/me/settings", {"language": "xx-"})
    assert (reply.status, reply.body["field"]) == (400, "language"), reply.text
    assert reply.body["message"].endswith("got 'xx-'")


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/v1/runs", {"agent_id": "a", "input": "x", "memory": {HUGE: 1}}, "memory"),
        ("POST", "/v1/context/preview", {"agent_id": "a", "input": "x", "memory": {HUGE: 1}}, "memory"),
        (
            "PUT",
            "/v1/agents/huge",
            {"label": "H", "mcp_servers": [{"name": "m", "url": "https://m.example", HUGE: 1}]},
            "mcp_servers.0",
        ),
    ],
)
def test_an_unknown_key_of_megabytes_in_a_closed_object_is_a_400_naming_its_start(
    api: Api, method: str, path: str, body: dict[str, object], field: str
) -> None:
    reply = api.call(method, path, json.dumps(body, ensure_ascii=False))
    assert reply.status == 400, reply.text[:300]
    assert len(json.dumps(reply.text)) < LAMBDA_RESPONSE_BYTES  # before: 14 MB, a bare 500 from API Gateway
    assert reply.body["field"] == f"{field}.{HUGE[:64]}…"
    assert reply.body["message"].startswith(f"{field}.{HUGE[:64]}…: ")


def test_an_unknown_key_of_a_closed_object_is_named_whole(api: Api) -> None:
    reply = api.post("/v1/runs", {"agent_id": "a", "input": "x", "memory": {"enabeld": True}})
    assert (reply.status, reply.body["field"]) == (400, "memory.enabeld"), reply.text
