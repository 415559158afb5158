"""The privacy routes in the OpenAPI document, their answers against the documented shapes, and the audit
chain checked over HTTP after a record was tampered with directly in the table."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_schema_validator import validate as validate_instance

from tests.functional.api.conftest import Api
from tests.support.deps import World

PRIVACY_ROUTES = [
    ("post", "/v1/me/export"),
    ("get", "/v1/me/exports/{export_id}"),
    ("delete", "/v1/me"),
    ("get", "/v1/me/erasure"),
    ("delete", "/v1/admin/users/{user_id}"),
    ("get", "/v1/admin/users/{user_id}/erasure"),
    ("get", "/v1/audit/verify"),
    ("get", "/v1/retention"),
]


@pytest.fixture
def document(api: Api) -> dict[str, Any]:
    body: dict[str, Any] = api.get("/v1/openapi.json", user=None).body
    return body


def _matches(document: dict[str, Any], method: str, path: str, status: int, body: Any) -> None:
    content = document["paths"][path][method]["responses"][str(status)]["content"]["application/json"]
    validate_instance(body, {**content["schema"], "components": document["components"]})


@pytest.mark.parametrize(("method", "path"), PRIVACY_ROUTES)
def test_every_privacy_route_is_documented(document: dict[str, Any], method: str, path: str) -> None:
    operation = document["paths"][path][method]
    assert operation["summary"] and "401" in operation["responses"]


def test_an_erasure_is_documented_with_its_receipt_not_as_a_bare_204(document: dict[str, Any]) -> None:
    responses = document["paths"]["/v1/me"]["delete"]["responses"]
    assert {"200", "202"} <= set(responses) and "204" not in responses


def test_the_answers_match_their_documented_shapes(api: Api, world: World, document: dict[str, Any]) -> None:
    exported = api.post("/v1/me/export", None)
    _matches(document, "post", "/v1/me/export", 202, exported.body)
    export = api.get(f"/v1/me/exports/{exported.body['export_id']}")
    _matches(document, "get", "/v1/me/exports/{export_id}", 200, export.body)
    _matches(document, "get", "/v1/audit/verify", 200, api.get("/v1/audit/verify").body)
    _matches(document, "get", "/v1/retention", 200, api.get("/v1/retention").body)
    world.privacy_jobs.hold = True
    _matches(document, "delete", "/v1/me", 202, api.delete("/v1/me").body)
    world.privacy_jobs.drain()
    _matches(document, "get", "/v1/me/erasure", 200, api.get("/v1/me/erasure").body)


def test_the_verification_route_reports_a_record_tampered_with_in_the_table(api: Api, world: World) -> None:
    # Given three audited memory writes of alice
    for n in range(3):
        api.post("/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": f"note {n}"})
    assert api.get("/v1/audit/verify").body["verified"] is True
    # When someone with access to the table rewrites the second record's detail
    table = world.deps.audit._table  # type: ignore[attr-defined]
    items = sorted((i for i in table._items.values() if i["PK"] == "USER#alice"), key=lambda i: i["chain_seq"])
    table.put({**items[1], "detail": '{"via":"nobody"}'})
    # Then the caller's verification names that link
    report = api.get("/v1/audit/verify").body
    assert report["verified"] is False
    assert report["first_broken"]["seq"] == 2 and report["first_broken"]["key"] == items[1]["SK"]
    assert api.get("/v1/audit/verify", user="bob").body["verified"] is True  # bob's chain is his own
