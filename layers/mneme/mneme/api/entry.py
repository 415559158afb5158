"""HTTP entry: authenticate from the JWT claims, guard the body size, resolve the route."""

from __future__ import annotations

from typing import Any

from mneme.api.app import MAX_BODY_BYTES, PUBLIC_PATHS
from mneme.api.auth import caller_from_event
from mneme.errors import MnemeError, PayloadTooLarge


def handle_http(app: Any, deps: Any, event: dict[str, Any], context: Any) -> dict[str, Any]:
    path = event.get("rawPath") or ""
    try:
        if path not in PUBLIC_PATHS:
            caller_from_event(event)  # 401 before anything else, even before body validation
        body = event.get("body") or ""
        size = len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode("utf-8"))
        if size > MAX_BODY_BYTES:
            raise PayloadTooLarge(f"the body is larger than {MAX_BODY_BYTES} bytes", field="body")
    except MnemeError as exc:
        import json

        return {
            "statusCode": exc.status,
            "headers": {"Content-Type": "application/json"},
            "body": json.dumps(exc.to_body()),
            "isBase64Encoded": False,
        }
    app.append_context(deps=deps)
    try:
        result: dict[str, Any] = app.resolve(event, context)
    finally:
        app.clear_context()
    return result
