"""The one place that maps exceptions to HTTP responses (``{"error", "message"}``, SPEC §10)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from mneme.errors import MnemeError, field_path, validation_text

JSON = "application/json"


#: a route's success as Powertools documents it from the handler's return type, for a route listing its errors
OK: dict[int, Any] = {200: {"description": "Successful Response"}}


def refusals(reasons: Mapping[int, str]) -> dict[int, Any]:
    """The ``responses=`` entries of the errors a route answers besides a 400 and a 401, each with what it means
    on that route: only what the route can answer (a 404 where it looks a resource up, a 409 where a conflict can
    occur, …). The OpenAPI document gives each the one error body, ``{error, message, field?}`` (mneme.api.app)."""
    return {status: {"description": reason} for status, reason in reasons.items()}


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response[str]:
    return Response(status, JSON, json.dumps(body, default=str, separators=(",", ":")), headers=headers)


def no_content() -> Response[str]:
    return Response(204, JSON, "")


def from_error(error: MnemeError) -> Response[str]:
    retry_after = error.details.get("retry_after", 5)
    headers = {"Retry-After": str(retry_after)} if error.status in (429, 503) else {}
    if error.details.get("etag"):  # a refused precondition: the resource's current tag (RFC 9110 §15.5.13)
        headers["ETag"] = str(error.details["etag"])
    return json_response(error.status, error.to_body(), headers or None)


def _field(loc: Any) -> str:
    """The failing field of a validation error's location: without where it was (``body``, ``query``, …) — only
    the location's head, so a body field named like a location (``query`` of a search) is still named."""
    parts = [str(part) for part in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    if len(parts) > 1 and parts[0] == "body":  # the route's body parameter
        parts = parts[1:]
    return field_path(parts, "body")


def from_validation(error: RequestValidationError) -> Response[str]:
    """A request that fails validation is a 400 naming the failing field (never a 422 or a 500)."""
    errors = error.errors()
    first = errors[0] if errors else {"loc": ("body",), "msg": "invalid request", "type": "value_error"}
    if first.get("type") == "json_invalid":
        return json_response(400, {"error": "invalid_json", "message": "the body is not valid JSON", "field": "body"})
    field = _field(first.get("loc", ()))
    message = f"{field}: {validation_text(first)}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    return json_response(400, {"error": "invalid_input", "message": message, "field": field})


def from_unexpected(error: Exception) -> Response[str]:
    """A bug is still a JSON error (logged with its traceback); its details never reach the client."""
    from mneme import observability

    observability.logger().exception("unhandled error in an HTTP route", error_type=type(error).__name__)
    return json_response(500, {"error": "internal_error", "message": "an unexpected error occurred"})
