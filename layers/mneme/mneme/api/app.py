"""The HTTP application: the routers, request validation, OpenAPI, and the one error mapping."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from mneme import __version__
from mneme.api import audit_routes, chat_routes, config_routes, memory_routes, privacy_routes, run_routes
from mneme.api.responses import JSON, from_error, from_unexpected, from_validation, json_response
from mneme.errors import MnemeError

_SECURITY = {"jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}
PUBLIC_PATHS = frozenset({"/v1/health", "/v1/openapi.json"})
MAX_BODY_BYTES = 1_000_000


def create_app() -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True)
    for module in (config_routes, run_routes, chat_routes, memory_routes, audit_routes, privacy_routes):
        app.include_router(module.router)

    @app.get("/v1/health", include_in_schema=True)
    def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/openapi.json")
    def openapi() -> Response[str]:
        return Response(200, JSON, openapi_document(app))

    app.exception_handler(MnemeError)(from_error)
    app.exception_handler(RequestValidationError)(from_validation)
    app.exception_handler(Exception)(from_unexpected)

    @app.not_found
    def not_found(_: Exception) -> Response[str]:
        return json_response(404, {"error": "not_found", "message": "no such route"})

    return app


def openapi_document(app: APIGatewayHttpResolver) -> str:
    schema = json.loads(
        app.get_openapi_json_schema(
            title="mneme",
            version=__version__,
            description="A serverless agent runtime: context assembly, long-term memory, delegation and audit.",
            security_schemes=_SECURITY,  # type: ignore[arg-type]
            security=[{"jwt": []}],
        )
    )
    return json.dumps(_document_errors(schema), separators=(",", ":"))


def _document_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """Document the errors the API really answers (SPEC §10): validation is a 400 ``{error, message, field}``
    (Powertools documents a 422 it never sends here), every non-public route may answer 401, and the public
    routes need no token."""
    from mneme.api.views import ErrorView

    components = schema.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = ErrorView.model_json_schema()
    error = {"content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for schema_name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        components["schemas"].pop(schema_name, None)
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            if method == "delete" and "202" not in responses:  # deletes answer 204 without a body (not erasures)
                responses.pop("200", None)
                responses["204"] = {"description": "deleted"}
            responses["400"] = {"description": "invalid input; `field` names the failing field", **error}
            if path in PUBLIC_PATHS:
                operation["security"] = []
            else:
                responses["401"] = {"description": "no verified token", **error}
            responses["default"] = {"description": "an error (403, 404, 409, 413, 429 or 503)", **error}
    return schema
