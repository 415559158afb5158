"""HTTP entry: authenticate from the JWT claims, guard the body (size, text, nesting), resolve the route — or
hand an ``/mcp`` request to mneme's MCP server (its own entry: one call, like a route)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mneme.api.app import MAX_BODY_BYTES, MCP_PATH, PUBLIC_PATHS
from mneme.api.auth import caller_from_event
from mneme.api.challenge import bearer_challenge
from mneme.api.media_type import refuse_content_encoding, require_json_body
from mneme.errors import InvalidInput, MnemeError, PayloadTooLarge
from mneme.json_depth import text_problem
from mneme.spec_limits import LAMBDA_RESPONSE_BYTES

_ESCAPED_MAX = 12  # the most bytes one character of a body takes once the response is JSON again


def handle_http(app: Any, deps: Any, event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _not_stored(_returnable(_answer(app, deps, event, context)))


def _returnable(response: dict[str, Any]) -> dict[str, Any]:
    """The response, or a 413 saying why when Lambda could not return it (over 6 MB as the JSON document the
    runtime sends: API Gateway would answer a bare 500). Escaping a body again takes at most 12 bytes a
    character (an astral one, ``\\ud83d\\ude00``, when a body such as MCP's keeps UTF-8): only a body over a
    twelfth of the limit is measured."""
    body = response.get("body")
    if not isinstance(body, str) or len(body) * _ESCAPED_MAX <= LAMBDA_RESPONSE_BYTES:
        return response
    size = len(json.dumps(response, default=str).encode())
    if size <= LAMBDA_RESPONSE_BYTES:
        return response
    error = PayloadTooLarge(
        f"the answer would take {size:,} bytes, more than the 6 MB a response carries: ask for less "
        "(a page with limit, a shorter chat or input)"
    )
    headers = {"Content-Type": "application/json"}
    return {"statusCode": 413, "headers": headers, "body": json.dumps(error.to_body()), "isBase64Encoded": False}


def _not_stored(response: dict[str, Any]) -> dict[str, Any]:
    """Every answer is the caller's own data, or depends on who asks: ``Cache-Control: no-store`` (unless a route
    says otherwise), so neither a shared browser keeps one user's answers on disk nor its cache revalidates them
    for the next user who signs in (a ``304`` to an ``If-None-Match`` it sent by itself would show the first
    user's body). A client that keeps what it read asks with ``If-None-Match`` itself."""
    headers = dict(response.get("headers") or {})
    if not any(name.lower() == "cache-control" for name in headers):
        headers["Cache-Control"] = "no-store"
    return {**response, "headers": headers}


def _answer(app: Any, deps: Any, event: dict[str, Any], context: Any) -> dict[str, Any]:
    path = event.get("rawPath") or ""
    caller = None
    try:
        caller = (
            caller_from_event(event, admin_group=deps.settings.admin_group) if path not in PUBLIC_PATHS else None
        )  # 401 before anything else, even before body validation
        refuse_content_encoding(event)
        event = _text_body(event)
        if path != MCP_PATH:  # the MCP endpoint answers its own transport's errors
            event = require_json_body(event)
    except MnemeError as exc:
        headers = {"Content-Type": "application/json"}
        if exc.status == 401:  # no verified claims: the authorizer let no token through
            headers["WWW-Authenticate"] = bearer_challenge(None)
        return {
            "statusCode": exc.status,
            "headers": headers,
            "body": json.dumps(exc.to_body()),
            "isBase64Encoded": False,
        }
    if path == MCP_PATH and caller is not None:
        from mneme.api.mcp_endpoint import handle_mcp

        return handle_mcp(deps, caller, event)
    result: dict[str, Any] = app.resolve_request(event, context, deps=deps, caller=caller)
    return result


def _text_body(event: dict[str, Any]) -> dict[str, Any]:
    """Bodies are JSON text: a binary (base64) body is decoded here, one that is not UTF-8 is a 400, and so
    is one nested deeper than the JSON limit (checked before Powertools parses it recursively). A leading
    byte order mark is dropped (RFC 8259 §8.1 lets a parser ignore it; PowerShell and Notepad write one):
    it was refused as "the body must be a JSON object" in front of a JSON object."""
    body = event.get("body") or ""
    raw = body.encode("utf-8", "surrogatepass") if not event.get("isBase64Encoded") else _b64(body)
    if len(raw) > MAX_BODY_BYTES:
        raise PayloadTooLarge(f"the body is larger than {MAX_BODY_BYTES} bytes", field="body")
    if event.get("isBase64Encoded"):
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput("the body is not UTF-8 text (JSON is expected)", field="body") from None
        event = {**event, "body": body, "isBase64Encoded": False}
    if body.startswith(_BOM):
        body = body[len(_BOM) :]
        event = {**event, "body": body}
    problem = text_problem(body)
    if problem is not None:
        raise InvalidInput(f"the body cannot be read as JSON: {problem}", field="body")
    return event


_BOM = "\ufeff"


def _b64(body: str) -> bytes:
    if len(body) * 3 // 4 > MAX_BODY_BYTES:
        raise PayloadTooLarge(f"the body is larger than {MAX_BODY_BYTES} bytes", field="body")
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("the body is not valid base64", field="body") from None
