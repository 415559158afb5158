"""The API Gateway HTTP API (payload **v2.0**) event of one local request, as the Lambda receives it."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mneme_local.auth import claims_for_event

HOST = "127.0.0.1"
ACCOUNT_ID = "123456789012"
_TEXT_TYPES = ("application/json", "text/", "application/x-www-form-urlencoded", "application/xml")


def _is_text(content_type: str, body: bytes) -> bool:
    if not body:
        return True
    if content_type and not content_type.lower().startswith(_TEXT_TYPES):
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def build_event(
    method: str,
    target: str,
    headers: list[tuple[str, str]],
    body: bytes,
    *,
    claims: Mapping[str, Any] | None,
    source_ip: str = HOST,
) -> dict[str, Any]:
    """The API Gateway HTTP API (payload 2.0) event of one request."""
    parts = urlsplit(target)
    path = parts.path or "/"
    merged: dict[str, str] = {}
    cookies: list[str] = []
    for name, value in headers:
        lower = name.lower()
        if lower == "cookie":
            cookies += [c.strip() for c in value.split(";") if c.strip()]
            continue
        merged[lower] = f"{merged[lower]},{value}" if lower in merged else value
    query: dict[str, str] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        query[name] = f"{query[name]},{value}" if name in query else value
    now = datetime.now(UTC)
    host = merged.get("host", HOST)
    text = _is_text(merged.get("content-type", ""), body)
    context: dict[str, Any] = {
        "accountId": ACCOUNT_ID,
        "apiId": "local",
        "domainName": host,
        "domainPrefix": host.split(".", 1)[0],
        "http": {
            "method": method.upper(),
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": source_ip,
            "userAgent": merged.get("user-agent", ""),
        },
        "requestId": uuid.uuid4().hex,
        "routeKey": "$default",
        "stage": "$default",
        "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
        "timeEpoch": int(now.timestamp() * 1000),
    }
    if claims is not None:
        context["authorizer"] = {"jwt": {"claims": claims_for_event(claims), "scopes": None}}
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": parts.query,
        "headers": merged,
        "requestContext": context,
        "isBase64Encoded": not text,
    }
    if cookies:
        event["cookies"] = cookies
    if query:
        event["queryStringParameters"] = query
    if body:
        event["body"] = body.decode("utf-8") if text else base64.b64encode(body).decode("ascii")
    return event
