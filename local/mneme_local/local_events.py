"""Local-only delivery of EventBridge events: ``POST /_local/events`` of the local server (``make event``).

On AWS a ``mneme.RunRequested`` event reaches the run function from the stack's event bus, whose resource
policy decides who may send it. Locally there is no bus: this loopback route of the local server plays it.
It is not part of the Lambda's API (the run function never sees the path; the OpenAPI document does not list
it) and, since an event runs an agent as whatever user it names, it takes only an **admin** token of the
local development key (``make event`` mints one). The event is handed to the same :meth:`Runtime.handle`
the bus would invoke; a missing ``id`` is filled in as EventBridge would (a fresh one per send), so sending
the same file twice is a redelivery of one event and starts one run.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from mneme.api.auth import DEFAULT_ADMIN_GROUP, groups_of
from mneme_local.auth import AuthError, authenticate

LOCAL_EVENTS_PATH = "/_local/events"
LOCAL_ACCOUNT = "000000000000"


def _answer(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": status, "headers": {"Content-Type": "application/json"}, "body": json.dumps(body)}


def _error(status: int, code: str, message: str) -> dict[str, Any]:
    return _answer(status, {"error": code, "message": message})


def as_eventbridge_event(document: Any, region: str) -> dict[str, Any]:
    """The event as EventBridge would deliver it: the envelope's missing fields filled in."""
    if not isinstance(document, dict) or not isinstance(document.get("detail-type"), str):
        raise ValueError("the body is not an EventBridge event (a JSON object with detail-type and detail)")
    event = dict(document)
    event.setdefault("version", "0")
    event.setdefault("id", str(uuid.uuid4()))
    event.setdefault("source", "mneme")
    event.setdefault("account", LOCAL_ACCOUNT)
    event.setdefault("time", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    event.setdefault("region", region)
    event.setdefault("resources", [])
    event.setdefault("detail", {})
    return event


def _refusal(key: bytes, method: str, authorization: str | None) -> tuple[int, str, str] | None:
    """Why the request may not send an event (not a POST, no valid token, not the admin group), or None."""
    if method != "POST":
        return 405, "method_not_allowed", f"{LOCAL_EVENTS_PATH} takes POST with an EventBridge event"
    try:
        claims = authenticate(key, authorization)
    except AuthError as exc:
        return 401, "unauthorized", str(exc)
    if DEFAULT_ADMIN_GROUP not in groups_of(claims.get("cognito:groups")):  # the group by exact name
        return 403, "forbidden", "sending events needs an admin token (make event mints one)"
    return None


def _body_problem(body: bytes) -> tuple[int, str, str] | None:
    """Why the body must not reach the JSON parser (too large, not UTF-8, nested too deep), or None."""
    from mneme.api.app import MAX_BODY_BYTES
    from mneme.json_depth import text_problem

    if len(body) > MAX_BODY_BYTES:
        return 413, "payload_too_large", f"the body is larger than {MAX_BODY_BYTES} bytes"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return 400, "invalid_input", "the body is not UTF-8 text (an EventBridge event in JSON is expected)"
    problem = text_problem(text)
    return None if problem is None else (400, "invalid_input", f"the body cannot be read as JSON: {problem}")


def deliver(
    handle_event: Callable[[dict[str, Any]], Any],
    key: bytes,
    *,
    method: str,
    authorization: str | None,
    body: bytes,
    region: str,
) -> dict[str, Any]:
    """Answer ``POST /_local/events`` (an API-Gateway-shaped result the server writes)."""
    from mneme.errors import MnemeError

    refusal = _refusal(key, method, authorization) or _body_problem(body)
    if refusal is not None:
        return _error(*refusal)
    try:
        event = as_eventbridge_event(json.loads(body or b"null"), region)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        return _error(400, "invalid_input", str(exc))
    try:
        result = handle_event(event)
    except MnemeError as exc:  # EventRejected: on AWS the invocation fails and the event goes to the DLQ
        return _answer(exc.status, exc.to_body())
    return _answer(200, result if isinstance(result, dict) else {"result": result})
