"""JSON's own types at the API's edge: a flag is ``true`` / ``false`` and a number a JSON number — ``0``, ``"yes"``,
``true`` for a count or ``"5"`` are a 400 naming the field (pydantic's lax mode read ``"global": 0`` as false and
``top_k: true`` as 1), and nothing is stored."""

from __future__ import annotations

from typing import Any, cast

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

POLICY = cast(dict[str, Any], AGENT["memory_policy"])
MODEL = cast(dict[str, Any], AGENT["model"])


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"global": 0}, "global"),
        ({"global": "false"}, "global"),
        ({"memory_policy": {**POLICY, "allow_write": 1}}, "memory_policy.allow_write"),
        ({"memory_policy": {**POLICY, "auto_read_enabled": "yes"}}, "memory_policy.auto_read_enabled"),
        ({"memory_policy": {**POLICY, "top_k": True}}, "memory_policy.top_k"),
        ({"memory_policy": {**POLICY, "top_k": "5"}}, "memory_policy.top_k"),
        ({"memory_policy": {**POLICY, "min_score": "0.5"}}, "memory_policy.min_score"),
        ({"model": {**MODEL, "inference": {"temperature": True}}}, "model.inference.temperature"),
    ],
)
def test_an_agent_field_of_another_json_type_is_a_400_naming_it(api: Api, fields: dict[str, Any], field: str) -> None:
    reply = api.put("/v1/agents/researcher", {**AGENT, **fields})
    assert (reply.status, reply.body["field"]) == (400, field)
    assert api.get("/v1/agents/researcher").status == 404


def test_json_numbers_and_flags_are_taken_as_they_are(api: Api) -> None:
    policy = {**POLICY, "top_k": 5.0, "min_score": 1, "allow_write": False}
    reply = api.put("/v1/agents/researcher", {**AGENT, "memory_policy": policy, "global": False})
    assert reply.status == 200, reply.text
    assert (reply.body["memory_policy"]["top_k"], reply.body["memory_policy"]["min_score"]) == (5, 1.0)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "top_k": True}, "top_k"),
        ({"query": "x", "top_k": "3"}, "top_k"),
        ({"query": "x", "explain": 1}, "explain"),
        ({"query": "x", "lines": "true"}, "lines"),
    ],
)
def test_a_search_field_of_another_json_type_is_a_400_naming_it(api: Api, body: dict[str, Any], field: str) -> None:
    reply = api.post("/v1/memory/search", body)
    assert (reply.status, reply.body["field"]) == (400, field)


def test_a_run_requests_memory_override_takes_a_flag_not_a_number(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    body = {"agent_id": "researcher", "input": "hello"}
    refused = api.post("/v1/runs", {**body, "memory": {"enabled": 0}})
    assert (refused.status, refused.body["field"]) == (400, "memory.enabled")
    assert api.post("/v1/runs", {**body, "memory": {"enabled": False}}).status == 200


def test_a_document_ttl_given_as_text_is_a_400_and_stores_nothing(api: Api) -> None:
    body = {"namespace": "vector.user.alice.notes", "content": "a note", "ttl_seconds": "3600"}
    reply = api.post("/v1/memory/documents", body)
    assert (reply.status, reply.body["field"]) == (400, "ttl_seconds")
    listed = api.get("/v1/memory/documents", query={"namespace": "vector.user.alice.notes"}).body
    assert listed["documents"] == []


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_a_number_that_is_not_finite_is_a_400_saying_so(api: Api, number: str) -> None:
    body = '{"query": "x", "min_score": ' + number + "}"  # Python's JSON reader takes these literals
    reply = api.post("/v1/memory/search", body)
    assert (reply.status, reply.body["field"]) == (400, "min_score")
    assert "finite" in reply.body["message"]


def test_a_moment_out_of_range_names_the_range_with_four_digit_years(api: Api) -> None:
    reply = api.post("/v1/memory/search", {"query": "x", "as_of": "9999-12-31T23:59:59Z"})
    assert reply.status == 400 and "between 0002-01-01 and 9998-01-01" in reply.body["message"]
