"""The HTTP application: the routers, request validation, OpenAPI, and the one error mapping.

A router module (and the pydantic bodies and views it imports) is loaded when the first request for one of
its paths arrives, so a cold start pays only for the routes it serves (which router serves which path is a
cold-start rule: mneme.cold_start); the OpenAPI document, and a path no router claims, load them all.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
from collections.abc import Iterable
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from mneme import __version__
from mneme.api.resolver import ConcurrentHttpResolver
from mneme.api.responses import JSON, from_error, from_unexpected, from_validation, json_response
from mneme.cold_start import ROUTERS, routers_for
from mneme.errors import MnemeError

_SECURITY = {"jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}
PUBLIC_PATHS = frozenset({"/v1/health", "/v1/openapi.json"})
MCP_PATH = "/mcp"  # mneme's MCP server (mneme.api.mcp_endpoint), beside the HTTP API's routes
#: the largest request body: a document of MAX_DOCUMENT_CHARS (200,000) characters outside the BMP, as JSON encoders
#: send it by default (ASCII, "\\ud83d\\ude00": 12 bytes a character), is 2.4 MB; at 1,000,000 bytes a run input
#: of 100,000 emoji (SPEC §12: within the limit) was a 413 (API Gateway takes 10 MB, Lambda 6 MB)
MAX_BODY_BYTES = 2_500_000


class MnemeApp(ConcurrentHttpResolver):
    """The resolver (each request's state kept apart, api/resolver.py), with its routers included on demand,
    once each: concurrent first requests for a router's paths include it once, under a lock."""

    def __init__(self) -> None:
        super().__init__(enable_validation=True)
        self.included: list[str] = []
        self._including = threading.Lock()

    def include(self, names: Iterable[str]) -> None:
        if all(name in self.included for name in names):
            return
        with self._including:
            for name in names:
                if name not in self.included:
                    self.include_router(importlib.import_module(f"mneme.api.{name}").router)
                    self.included.append(name)

    def methods_for(self, path: str) -> list[str]:
        """The methods the included routes answer on ``path`` (none: no route has it)."""
        routes = self._static_routes + self._dynamic_routes
        return sorted({route.method for route in routes if route.rule.match(self._remove_prefix(path))})

    def include_for(self, path: str, method: str = "") -> None:
        """Include the routers that serve ``method path`` (all of them for a path no router claims)."""
        self.include(routers_for(path, method))


def create_app(*, lazy: bool = False) -> MnemeApp:
    """The HTTP app; with ``lazy`` its routers are included by :meth:`MnemeApp.include_for` per request."""
    app = MnemeApp()
    if not lazy:
        app.include(ROUTERS)

    @app.get("/v1/health", include_in_schema=True)
    def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/openapi.json", responses=_OPENAPI_DOCUMENT)
    def openapi() -> Response[str]:
        app.include(ROUTERS)
        return Response(200, JSON, openapi_document(app))

    app.exception_handler(MnemeError)(from_error)
    app.exception_handler(RequestValidationError)(from_validation)
    app.exception_handler(Exception)(from_unexpected)

    @app.not_found
    def not_found(_: Exception) -> Response[str]:
        allowed = app.methods_for(app.current_event.path)
        if allowed:  # the route exists, not with this method
            method = app.current_event.http_method.upper()
            message = f"{method} is not a method of this route: {', '.join(allowed)}"
            body = {"error": "method_not_allowed", "message": message}
            return json_response(405, body, {"Allow": ", ".join(allowed)})
        return json_response(404, {"error": "not_found", "message": "no such route"})

    return app


def openapi_document(app: ConcurrentHttpResolver) -> str:
    schema = json.loads(
        app.get_openapi_json_schema(
            title="mneme",
            version=__version__,
            description="A serverless agent runtime: context assembly, long-term memory, delegation and audit.",
            security_schemes=_SECURITY,  # type: ignore[arg-type]
            security=[{"jwt": []}],
        )
    )
    schema = _document_errors(schema)
    schema["paths"][MCP_PATH] = _MCP_OPERATION
    return json.dumps(schema, separators=(",", ":"))


#: what ``GET /v1/openapi.json`` answers: this document, a JSON object (not the string its handler returns)
_OPENAPI_DOCUMENT: dict[int, Any] = {
    200: {
        "description": "this OpenAPI 3.1 document",
        "content": {"application/json": {"schema": {"type": "object", "description": "an OpenAPI 3.1 document"}}},
    }
}
_JSON_RPC = {"application/json": {"schema": {"type": "object", "description": "a JSON-RPC 2.0 message"}}}
_MCP_OPERATION: dict[str, Any] = {
    "post": {
        "summary": "mneme's MCP server (streamable HTTP, stateless, JSON responses)",
        "description": "Model Context Protocol over streamable HTTP: one JSON-RPC message per POST, one JSON "
        "answer. Tools: memory-search, memory-write, memory-delete, run-agent. The caller is the token's `sub`; "
        "send `Accept: application/json, text/event-stream`. GET and DELETE answer 405 (no sessions).",
        "operationId": "mcp",
        "requestBody": {"required": True, "content": _JSON_RPC},
        "responses": {
            "200": {"description": "the JSON-RPC answer", "content": _JSON_RPC},
            "202": {"description": "a notification, accepted"},
            "default": {
                "description": "a JSON-RPC error, or an error of the API (401, 406, 413)",
                "content": _JSON_RPC,
            },
        },
    }
}


#: the ``error`` code an answer of each status usually carries (an example's; a route's description names others)
_CODES = {
    400: "invalid_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "memory_unavailable",
}
_NAMED_CODE = re.compile(r"`([a-z_]+)`: (.+)", re.DOTALL)
_RETRY_AFTER = {"Retry-After": {"description": "seconds to wait before retrying", "schema": {"type": "integer"}}}
#: what every route with a body may answer (mneme.api.entry refuses it before a route runs)
_BODY_REFUSALS = {
    413: f"the body is over {MAX_BODY_BYTES:,} bytes",
    415: "the body is not sent as JSON (`Content-Type: application/json`), or is sent compressed (`Content-Encoding`)",
}
_DEFAULT = (
    "any other error, on any route: a 500 `internal_error`, or a 429 `throttled` / 503 `store_unavailable` when the "
    "database throttles or cannot be reached (retry after Retry-After)"
)


def _document_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """Document the errors the API really answers (SPEC §10), each route its own: validation is a 400
    ``{error, message, field}`` (Powertools documents a 422 it never sends here), every non-public route may answer
    401, a route with a body 413 and 415, and each route the statuses it declares (``refusals`` in its
    ``responses=``) — all with the one error body and an example; the public routes need no token."""
    from mneme.api.views import ErrorView

    components = schema.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = ErrorView.model_json_schema()
    for schema_name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        components["schemas"].pop(schema_name, None)
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            if method == "delete" and "202" not in responses:  # deletes answer 204 without a body (not erasures)
                responses.pop("200", None)
                responses["204"] = {"description": "deleted"}
            responses["400"] = {"description": "invalid input; `field` names the failing field"}
            if path in PUBLIC_PATHS:
                operation["security"] = []
            else:
                responses["401"] = {"description": "no verified token"}
            if "requestBody" in operation:
                for status, reason in _BODY_REFUSALS.items():
                    responses.setdefault(str(status), {"description": reason})
            for status, response in responses.items():
                if status.isdigit() and int(status) >= 400:
                    responses[status] = _error_answer(int(status), response)
            responses["default"] = {"description": _DEFAULT, **_error_content(None)}
    return schema


def _error_answer(status: int, response: dict[str, Any]) -> dict[str, Any]:
    """An error status of a route: its description, the error body with an example, Retry-After where it is sent."""
    description = str(response.get("description") or "")
    named = _NAMED_CODE.match(description)  # "`idempotency_conflict`: …": the code this route's answer carries
    code, said = named.groups() if named else (_CODES.get(status, "error"), description)
    answer = {"description": description, **_error_content({"error": code, "message": said.split(";")[0]})}
    if status in (429, 503):
        answer["headers"] = _RETRY_AFTER
    elif status == 412:
        answer["headers"] = {"ETag": {"description": "the resource's current entity tag", "schema": {"type": "string"}}}
    return answer


def _error_content(example: dict[str, Any] | None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": {"$ref": "#/components/schemas/Error"}}
    if example is not None:
        media["example"] = example
    return {"content": {JSON: media}}
