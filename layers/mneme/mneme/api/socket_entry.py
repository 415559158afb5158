"""WebSocket API events (``$connect``, ``$disconnect``, the ``subscribe`` / ``unsubscribe`` routes): parse,
one engine call, the integration's answer. Answers to the client travel as pushes (engine/views/sockets.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from mneme.engine.views import sockets
from mneme.errors import MnemeError, field_path, validation_text
from mneme.models.requests import SocketMessage
from mneme.models.user import Caller

OK = {"statusCode": 200}


def handle_socket(deps: Any, event: Mapping[str, Any]) -> dict[str, Any]:
    context = event["requestContext"]
    connection_id = str(context.get("connectionId") or "")
    kind = context.get("eventType")
    if kind == "CONNECT":
        return _connect(deps, connection_id, context.get("authorizer") or {})
    if kind == "DISCONNECT":
        sockets.disconnected(deps, connection_id)
        return OK
    try:
        message = SocketMessage.model_validate(json.loads(event.get("body") or "{}"))
    except (ValueError, ValidationError) as exc:
        error = {"type": "error", "error": "invalid_input", "message": _reason(exc)}
        sockets.answer(deps, connection_id, error)
        return OK
    sockets.received(deps, connection_id, message)
    return OK


def _connect(deps: Any, connection_id: str, authorizer: Mapping[str, Any]) -> dict[str, Any]:
    """The authorizer verified the token and put its user into the context."""
    try:
        caller = Caller(user_id=str(authorizer.get("user_id") or ""))
    except ValidationError:
        return {"statusCode": 401}
    try:
        sockets.connected(deps, connection_id, caller)
    except MnemeError as exc:
        return {"statusCode": exc.status}
    return OK


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"{field_path(first['loc'], 'body')}: {validation_text(first)}"
    return "the message is not valid JSON"
