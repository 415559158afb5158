"""``GET /v1/health`` (no auth) and ``GET /v1/openapi.json`` (generated from the code, SPEC §10)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import validate as validate_instance
from openapi_spec_validator import validate as validate_spec

from mneme.spec_limits import MAX_DOCUMENT_CHARS
from tests.functional.api.conftest import Api

SPEC_ROUTES = [
    ("get", "/v1/health"),
    ("get", "/v1/me/settings"),
    ("put", "/v1/me/settings"),
    ("get", "/v1/agents"),
    ("get", "/v1/agents/{agent_id}"),
    ("put", "/v1/agents/{agent_id}"),
    ("delete", "/v1/agents/{agent_id}"),
    ("get", "/v1/agents/{agent_id}/tasks"),
    ("get", "/v1/agents/{agent_id}/tasks/{task_id}"),
    ("put", "/v1/agents/{agent_id}/tasks/{task_id}"),
    ("delete", "/v1/agents/{agent_id}/tasks/{task_id}"),
    ("get", "/v1/skills"),
    ("get", "/v1/skills/{name}"),
    ("put", "/v1/skills/{name}"),
    ("delete", "/v1/skills/{name}"),
    ("post", "/v1/runs"),
    ("get", "/v1/runs/{run_id}"),
    ("get", "/v1/runs/{run_id}/events"),
    ("get", "/v1/runs/{run_id}/context"),
    ("post", "/v1/runs/{run_id}/approvals"),
    ("post", "/v1/context/preview"),
    ("get", "/v1/chats"),
    ("get", "/v1/chats/{chat_id}"),
    ("delete", "/v1/chats/{chat_id}"),
    ("post", "/v1/memory/search"),
    ("post", "/v1/memory/documents"),
    ("post", "/v1/memory/documents:batch"),
    ("delete", "/v1/memory/documents/{doc_id}"),
    ("get", "/v1/audit"),
    ("get", "/v1/openapi.json"),
]


@pytest.fixture
def document(api: Api) -> dict[str, Any]:
    reply = api.get("/v1/openapi.json", user=None)
    assert reply.status == 200
    body: dict[str, Any] = reply.body
    return body


def _response_schema(document: dict[str, Any], method: str, path: str, status: int) -> dict[str, Any]:
    schema: dict[str, Any] = document["paths"][path][method]["responses"][str(status)]["content"]["application/json"][
        "schema"
    ]
    return {**schema, "components": document["components"]}


def test_health_answers_without_a_token(api: Api) -> None:
    # When the health route is called without any claims
    reply = api.get("/v1/health", user=None)
    # Then it is alive
    assert reply.status == 200
    assert reply.body["status"] == "ok"


def test_the_openapi_document_is_served_without_a_token_and_is_valid(document: dict[str, Any]) -> None:
    validate_spec(document)
    assert document["openapi"].startswith("3.")


@pytest.mark.parametrize(("method", "path"), SPEC_ROUTES)
def test_the_openapi_document_lists_every_route(document: dict[str, Any], method: str, path: str) -> None:
    assert method in document["paths"].get(path, {}), f"{method.upper()} {path} missing"


def test_routes_need_the_bearer_token_except_the_public_ones(document: dict[str, Any]) -> None:
    assert document["security"] == [{"jwt": []}]
    assert document["paths"]["/v1/health"]["get"]["security"] == []
    assert document["paths"]["/v1/openapi.json"]["get"]["security"] == []


def test_validation_errors_are_documented_as_400_not_422(document: dict[str, Any]) -> None:
    statuses = {
        status
        for operations in document["paths"].values()
        for operation in operations.values()
        for status in operation["responses"]
    }
    assert "422" not in statuses
    assert "400" in document["paths"]["/v1/runs"]["post"]["responses"]


def test_a_400_answer_matches_the_documented_error_schema(api: Api, document: dict[str, Any]) -> None:
    # Given the documented 400 of POST /v1/memory/search
    schema = _response_schema(document, "post", "/v1/memory/search", 400)
    # When the API answers a 400
    reply = api.post("/v1/memory/search", {"query": "x", "top_k": 50})
    # Then the body validates against it
    assert reply.status == 400
    validate_instance(reply.body, schema)


def test_a_finished_run_matches_the_documented_run_schema(api: Api, document: dict[str, Any], world) -> None:
    from tests.functional.api.conftest import add_agent

    add_agent(world)
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hi"})
    assert reply.status == 200
    validate_instance(reply.body, _response_schema(document, "post", "/v1/runs", 200))


def test_search_hits_and_the_audit_page_match_their_documented_schemas(api: Api, document: dict[str, Any]) -> None:
    # Given an entry (its write is audited)
    api.post("/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": "green tea"})
    # When alice searches and reads her audit
    search = api.post("/v1/memory/search", {"query": "green tea"})
    audit = api.get("/v1/audit")
    # Then both answers validate against the document
    assert search.body["hits"] and audit.body["records"]
    validate_instance(search.body, _response_schema(document, "post", "/v1/memory/search", 200))
    validate_instance(audit.body, _response_schema(document, "get", "/v1/audit", 200))


def test_deletes_are_documented_as_204(document: dict[str, Any]) -> None:
    responses = document["paths"]["/v1/chats/{chat_id}"]["delete"]["responses"]
    assert "204" in responses and "200" not in responses


def test_a_request_body_example_matches_the_documented_run_request(document: dict[str, Any]) -> None:
    schema = {"$ref": "#/components/schemas/RunRequest", "components": document["components"]}
    validate_instance({"agent_id": "master", "input": "hello", "tool_approval": "prompt"}, schema)


def test_the_openapi_document_answers_the_schema_it_documents_for_itself(document: dict[str, Any]) -> None:
    validate_instance(document, _response_schema(document, "get", "/v1/openapi.json", 200))


def _body_schema(document: dict[str, Any], name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}", "components": document["components"]}


@pytest.mark.parametrize("namespace", ["0", "memory", "user.alice.memory"])
def test_a_namespace_the_api_refuses_for_its_shape_is_refused_by_the_document_too(
    api: Api, document: dict[str, Any], namespace: str
) -> None:
    body = {"namespace": namespace, "content": "green tea"}
    assert api.post("/v1/memory/documents", body).status == 400
    with pytest.raises(ValidationError):
        validate_instance(body, _body_schema(document, "DocumentBody"))


@pytest.mark.parametrize("namespace", ["vector.user.alice.memory", "vector.user.${user_id}.memory"])
def test_a_namespace_the_api_takes_is_valid_for_the_document(
    api: Api, document: dict[str, Any], namespace: str
) -> None:
    body = {"namespace": namespace, "content": "green tea"}
    assert api.post("/v1/memory/documents", body).status == 201
    validate_instance(body, _body_schema(document, "DocumentBody"))


def test_an_empty_patch_is_refused_by_the_api_and_by_the_document(api: Api, document: dict[str, Any]) -> None:
    written = api.post("/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": "green tea"})
    assert api.call("PATCH", f"/v1/memory/documents/{written.body['ids'][0]}", {}).status == 400
    with pytest.raises(ValidationError):
        validate_instance({}, _body_schema(document, "DocumentPatch"))
    validate_instance({"tags": ["drink"]}, _body_schema(document, "DocumentPatch"))


def test_a_documents_content_is_documented_with_the_limit_the_api_answers_413_above(
    api: Api, document: dict[str, Any]
) -> None:
    schema = document["components"]["schemas"]["DocumentBody"]["properties"]["content"]
    assert schema["maxLength"] == MAX_DOCUMENT_CHARS
    body = {"namespace": "vector.user.alice.notes", "content": "x" * schema["maxLength"] + "x"}
    assert api.post("/v1/memory/documents", body).status == 413
