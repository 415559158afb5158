"""Authentication and the one error mapping (SPEC §10): JSON ``{error, message}``, never a 500 for bad input."""

from __future__ import annotations

import json

import pytest

from mneme.api.app import MAX_BODY_BYTES
from tests.functional.api.conftest import Api, add_agent, stored_runs
from tests.support.shapes import ERROR_KEYS


def test_a_request_without_claims_is_401_before_anything_else(api: Api) -> None:
    # Given no authorizer claims and a body that would not even validate
    # When the request reaches the API
    reply = api.post("/v1/runs", "{not json", user=None)
    # Then it is a 401 (authentication comes before body validation)
    assert reply.status == 401
    assert reply.body["error"] == "unauthorized"
    assert set(reply.body) >= ERROR_KEYS


def test_claims_without_sub_are_401(api: Api) -> None:
    reply = api.get("/v1/agents", claims={"email": "alice@example.com"})
    assert (reply.status, reply.body["error"]) == (401, "unauthorized")


def test_malformed_json_is_400_naming_the_body(api: Api, world) -> None:
    # Given an agent
    add_agent(world)
    # When the body is not JSON
    reply = api.post("/v1/runs", '{"agent_id": "master", "input": ')
    # Then a 400 invalid_json, and nothing was started
    assert reply.status == 400
    assert reply.body == {"error": "invalid_json", "message": "the body is not valid JSON", "field": "body"}
    assert stored_runs(world) == []


def test_an_out_of_range_field_is_400_naming_it(api: Api) -> None:
    # When top_k is above the limit of 20
    reply = api.post("/v1/memory/search", {"query": "cats", "top_k": 50})
    # Then the 400 names top_k
    assert reply.status == 400
    assert reply.body["error"] == "invalid_input"
    assert reply.body["field"] == "top_k"
    assert "top_k" in reply.body["message"]


def test_a_nested_field_is_named_with_its_path(api: Api) -> None:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hi", "memory": {"top_k": 0}})
    assert (reply.status, reply.body["field"]) == (400, "memory.top_k")


@pytest.mark.parametrize("body", [{"query": ""}, {}, {"query": 5}])
def test_a_body_field_named_like_a_location_is_named(api: Api, body: dict[str, object]) -> None:
    # a search's "query" is a body field, not the query string: the 400 names it (before: "body")
    reply = api.post("/v1/memory/search", body)
    assert (reply.status, reply.body["field"]) == (400, "query")
    assert reply.body["message"].startswith("query: ")


def test_a_missing_required_field_is_400(api: Api) -> None:
    reply = api.post("/v1/runs", {"agent_id": "master"})
    assert (reply.status, reply.body["field"]) == (400, "input")


def test_a_json_array_body_is_400_not_500(api: Api) -> None:
    reply = api.post("/v1/runs", [1, 2, 3])
    assert (reply.status, reply.body["error"]) == (400, "invalid_input")


def test_a_bad_query_parameter_is_400_naming_it(api: Api) -> None:
    reply = api.get("/v1/audit", query={"limit": "many"})
    assert (reply.status, reply.body["field"]) == (400, "limit")


def test_an_oversized_run_input_is_413(api: Api, world) -> None:
    # Given an agent
    add_agent(world)
    # When the input has more than 100,000 characters
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "x" * 100_001})
    # Then 413 naming the input, and no run was created
    assert reply.status == 413
    assert (reply.body["error"], reply.body["field"]) == ("payload_too_large", "input")
    assert stored_runs(world) == []


def test_an_input_of_exactly_the_limit_is_accepted(api: Api, world) -> None:
    add_agent(world)
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "x" * 100_000})
    assert reply.status == 200


def test_an_oversized_body_is_413_before_parsing(api: Api) -> None:
    reply = api.post("/v1/runs", json.dumps({"agent_id": "master", "input": "y" * (MAX_BODY_BYTES + 1)}))
    assert (reply.status, reply.body["error"], reply.body["field"]) == (413, "payload_too_large", "body")


def test_a_run_input_of_the_limit_in_emoji_sent_as_ascii_json_is_accepted(api: Api, world) -> None:
    # 100,000 characters outside the BMP, escaped as json.dumps does by default: 1.2 MB of body
    add_agent(world)
    body = json.dumps({"agent_id": "master", "input": "😀" * 100_000})
    assert len(body) > 1_000_000
    assert api.post("/v1/runs", body).status == 200


def test_a_document_of_the_limit_in_emoji_sent_as_ascii_json_is_stored(api: Api) -> None:
    body = json.dumps({"namespace": "vector.user.alice.memory", "content": "😀" * 200_000})
    assert len(body) > 2_400_000
    reply = api.post("/v1/memory/documents", body)
    assert reply.status == 201, reply.text[:300]


def test_an_unknown_route_is_a_json_404(api: Api) -> None:
    reply = api.get("/v1/nothing-here")
    assert reply.status == 404
    assert reply.body["error"] == "not_found"
    assert reply.headers["content-type"] == "application/json"


def test_a_route_with_another_method_is_a_json_405_naming_its_methods(api: Api) -> None:
    reply = api.call("PATCH", "/v1/agents/planner", {"label": "x"})
    assert (reply.status, reply.body["error"]) == (405, "method_not_allowed")
    assert reply.headers["allow"] == "DELETE, GET, PUT" and "PATCH" in reply.body["message"]
    listing = api.call("POST", "/v1/skills", {})
    assert (listing.status, listing.headers["allow"]) == (405, "GET")
    assert api.call("PATCH", "/v1/nothing-here", {}).status == 404  # no route: still a 404


def test_a_body_over_the_limit_in_bytes_is_413_even_with_fewer_characters(api: Api) -> None:
    # 700,000 four-byte characters: 2.8 MB on the wire, fewer characters than the limit's bytes
    text = json.dumps({"query": "😀" * 700_000}, ensure_ascii=False)
    assert len(text) < MAX_BODY_BYTES < len(text.encode())
    reply = api.post("/v1/memory/search", text)
    assert (reply.status, reply.body["error"]) == (413, "payload_too_large")


def test_an_unexpected_error_is_a_json_500_without_details(api: Api, world, monkeypatch) -> None:
    # Given a store that fails in an unexpected way
    def broken(user_id: str) -> list[object]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(world.deps.config, "list_agents", broken)
    # When the route runs
    reply = api.get("/v1/agents")
    # Then a JSON 500 that does not leak the message
    assert reply.status == 500
    assert reply.body == {"error": "internal_error", "message": "an unexpected error occurred"}
