"""The caller comes from ``requestContext.authorizer.jwt.claims`` only — never from a body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.errors import Unauthorized
from mneme.models.user import Caller

ADMIN_GROUP = "admin"


def _groups(value: Any) -> list[str]:
    """``cognito:groups`` arrives as a list, or (API Gateway HTTP API) as a string like ``[admin users]``."""
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, str):
        return [part for part in value.strip("[]").replace(",", " ").split() if part]
    return []


def caller_from_claims(claims: Mapping[str, Any] | None) -> Caller:
    sub = (claims or {}).get("sub")
    if not isinstance(sub, str) or not sub.strip() or len(sub) > 128:
        raise Unauthorized("a verified token with a 'sub' claim is required")
    return Caller(user_id=sub, is_admin=ADMIN_GROUP in _groups((claims or {}).get("cognito:groups")))


def caller_from_event(event: Mapping[str, Any]) -> Caller:
    context = event.get("requestContext") or {}
    claims = ((context.get("authorizer") or {}).get("jwt") or {}).get("claims")
    return caller_from_claims(claims if isinstance(claims, Mapping) else None)
