"""The checks ``/mcp`` makes of a JSON-RPC message before the ``mcp`` SDK reads it (:mod:`mneme.api.mcp_endpoint`):
what JSON-RPC 2.0 and MCP refuse and the SDK misreads, answered with the code JSON-RPC names and a message that
says what is wrong, never the SDK's dump of pydantic's union errors.

* An ``id`` that is not a string or an integer (an object, a list, a boolean, a fraction) made a request a
  notification — ``202``, nothing run, no answer.
* A ``jsonrpc`` other than ``"2.0"``, a batch (a JSON array: MCP 2025-06-18 removed JSON-RPC batching), any other
  body that is not an object, and a request without a method (or with one that is not a string) were "Invalid
  params" (-32602) with "4 validation errors for union[JSONRPCRequest,…]"; they are -32600 Invalid Request.
* An id or method over :data:`MAX_NAME_CHARS` (echoed whole, 2.4 MB of emoji made an answer over Lambda's 6 MB:
  a 500) is refused before it is echoed.
* A request without an id (``tools/call`` as a notification) was a ``202``: nothing run, nothing said; only
  ``notifications/…`` methods go without an id (MCP's HTTP transport lets a refused message be a 400).
* A request's params that cannot be read are -32602 naming the member (:func:`params_error`).

A body that is not JSON is the SDK's to answer (-32700 Parse error).
"""

from __future__ import annotations

import json
from typing import Any

#: the longest request id, method or tool name taken (MCP: tool names of 1 to 128 characters)
MAX_NAME_CHARS = 256
UNREADABLE = object()  # a body that is not JSON
NOT_A_MESSAGE = "the message is not a JSON-RPC 2.0 request, notification or answer of MCP's"
BATCH = "a batch (a JSON array) is not taken: MCP removed JSON-RPC batching in 2025-06-18, send one message per POST"


def read_message(raw: str) -> Any:
    """The request's JSON, read once for the checks below; :data:`UNREADABLE` when it is not JSON."""
    try:
        return json.loads(raw)
    except ValueError:
        return UNREADABLE


def envelope_error(message: Any) -> str | None:
    """Why ``message`` is not a JSON-RPC 2.0 message mneme takes (an Invalid Request), or None."""
    if message is UNREADABLE:
        return None
    why = _shape_problem(message) if not isinstance(message, dict) else _member_problem(message)
    return None if why is None else f"Invalid Request: {why}"


def _shape_problem(message: Any) -> str:
    return BATCH if isinstance(message, list) else "the body must be a JSON-RPC message, a JSON object"


def _member_problem(message: dict[str, Any]) -> str | None:
    request_id, method = message.get("id"), message.get("method")
    problems = [
        (message.get("jsonrpc") != "2.0", '"jsonrpc" must be "2.0"'),
        (
            "id" in message and (isinstance(request_id, bool) or not isinstance(request_id, str | int)),
            '"id" must be a string or an integer',
        ),
        (
            isinstance(request_id, str) and len(request_id) > MAX_NAME_CHARS,
            f'"id" must be at most {MAX_NAME_CHARS} characters',
        ),
        # a message without a method is a client's answer to the server (result or error), else nothing
        (not {"method", "result", "error"} & message.keys(), '"method" is required'),
        # a request sent without an id would run unanswered (tools/call: a write done or dropped, unknown)
        (
            "id" not in message and isinstance(method, str) and not method.startswith("notifications/"),
            f'"id" is required: {str(method)[:MAX_NAME_CHARS]!r} is a request, only notifications/… go without',
        ),
        ("method" in message and not isinstance(method, str), '"method" must be a string'),
        (
            isinstance(method, str) and len(method) > MAX_NAME_CHARS,
            f'"method" must be at most {MAX_NAME_CHARS} characters',
        ),
    ]
    return next((why for refused, why in problems if refused), None)


def params_error(message: Any) -> tuple[str | int, str] | None:
    """(id, why) when a request's params cannot be read — not an object, or a ``tools/call`` without a tool name
    or with arguments that are not an object: the SDK answers those "Invalid request parameters" with empty
    data, or a dump of pydantic's union errors, naming nothing. None when the SDK may take it (after
    :func:`envelope_error`: a request's id is a string or an integer)."""
    if not isinstance(message, dict) or "id" not in message:
        return None
    method = message.get("method")
    why = _params_problem(method, message.get("params", None if method == "tools/call" else {}))
    return None if why is None else (message["id"], f"Invalid params: {why}")


def _params_problem(method: Any, params: Any) -> str | None:
    if not isinstance(params, dict):
        return '"params" must be an object' + (' with the tool\'s "name"' if method == "tools/call" else "")
    if method != "tools/call":
        return None
    if not isinstance(params.get("name"), str) or not 0 < len(params["name"]) <= MAX_NAME_CHARS:
        return '"params.name" must be the name of the tool to call (tools/list)'
    if params.get("arguments") is not None and not isinstance(params["arguments"], dict):
        return '"params.arguments" must be an object of the tool\'s arguments'
    return None
