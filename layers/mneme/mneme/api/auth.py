"""The caller comes from ``requestContext.authorizer.jwt.claims`` only — never from a body.

* ``sub`` is the user id. One that could collide with a value the key schemes reserve (see
  :func:`mneme.models.common.reserved_user_id`) is refused with a 401, like a missing one.
* ``cognito:groups`` is parsed exactly in the forms it arrives in (:func:`groups_of`), and the admin group
  (a setting, ``MNEME_ADMIN_GROUP``) must be one of the groups, by exact name.
* API Gateway renders an array claim as its names joined by spaces in brackets: ``["ops admin"]`` and
  ``["ops", "admin"]`` both arrive as ``[ops admin]``, and ``["admin "]`` as ``[admin ]`` (issue 31.11).
  Such a rendering is read from the token itself — the ``Authorization`` header the JWT authorizer verified
  (its identity source), bound to the rendered claims by ``sub``, ``iss`` and ``jti`` — and, when that cannot be
  done, a rendering that could hide a name with white space grants nothing.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from mneme.errors import Unauthorized
from mneme.json_depth import text_problem
from mneme.models.common import reserved_user_id
from mneme.models.user import Caller

DEFAULT_ADMIN_GROUP = "admin"


def groups_of(value: Any) -> list[str]:
    """The group names of a ``cognito:groups`` claim, each exactly as named.

    * a JSON list (a token verified locally, a direct invocation): its strings;
    * a string holding a JSON array of strings (``'["admin","users"]'``);
    * API Gateway HTTP API's rendering of an array claim, brackets around names separated by single spaces
      (``'[admin users]'``; Cognito group names contain no white space, so the split is unambiguous there);
    * any other string is one group name.

    Nothing else splits a name: ``x,admin``, ``[admin`` or ``admin]`` stay what they are.
    """
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    if not isinstance(value, str):
        return []
    if value.startswith("[") and value.endswith("]"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return [part for part in value[1:-1].split(" ") if part]
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return list(parsed)
        return []
    return [value] if value else []


def caller_from_claims(
    claims: Mapping[str, Any] | None,
    *,
    admin_group: str = DEFAULT_ADMIN_GROUP,
    token_claims: Mapping[str, Any] | None = None,
) -> Caller:
    """The caller of verified ``claims``; ``token_claims`` (the token's own, unrendered) settle a rendered
    ``cognito:groups`` that could hide white space in a name."""
    sub = (claims or {}).get("sub")
    if not isinstance(sub, str) or not sub.strip():
        raise Unauthorized("a verified token with a 'sub' claim is required")
    reason = reserved_user_id(sub)
    if reason is not None:
        raise Unauthorized(f"the token's 'sub' claim cannot be a user id here: {reason}")
    groups = (claims or {}).get("cognito:groups")
    if _ambiguous(groups):
        bound = token_claims is not None and _bound(claims or {}, token_claims)
        groups = token_claims.get("cognito:groups") if bound and token_claims is not None else None
    return Caller(user_id=sub, is_admin=admin_group in groups_of(groups))


def caller_from_event(event: Mapping[str, Any], *, admin_group: str = DEFAULT_ADMIN_GROUP) -> Caller:
    context = event.get("requestContext") or {}
    claims = ((context.get("authorizer") or {}).get("jwt") or {}).get("claims")
    return caller_from_claims(
        claims if isinstance(claims, Mapping) else None, admin_group=admin_group, token_claims=_token_claims(event)
    )


def _ambiguous(value: Any) -> bool:
    """API Gateway's rendering of an array claim (``[a b]``, not JSON) with white space inside: a name with
    a space and two names look the same."""
    if not (isinstance(value, str) and value.startswith("[") and value.endswith("]")):
        return False
    try:
        json.loads(value)
    except ValueError:
        return any(char.isspace() for char in value[1:-1])
    return False


_BINDING = ("sub", "iss", "jti")  # string claims, rendered as they are (numbers' renderings may vary)


def _bound(claims: Mapping[str, Any], token: Mapping[str, Any]) -> bool:
    """Is ``token`` the token whose rendered claims these are (the same subject, issuer and token id)?"""
    return token.get("sub") == claims.get("sub") and all(
        token.get(name) == claims[name] for name in _BINDING if name in claims
    )


def _token_claims(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The payload of the bearer token in the ``Authorization`` header (API Gateway's JWT authorizer verified
    it; its signature is not checked again), or None when there is none or it cannot be read."""
    headers = event.get("headers") or {}
    value = next((str(v) for k, v in headers.items() if str(k).lower() == "authorization"), "").strip()
    token = value[7:].strip() if value.lower().startswith("bearer ") else value
    parts = token.split(".")
    if len(parts) != 3 or len(parts[1]) > _MAX_TOKEN_CHARS:
        return None
    try:
        text = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)).decode("utf-8")
        payload = None if text_problem(text) else json.loads(text)
    except (ValueError, binascii.Error):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    return payload if isinstance(payload, dict) else None


_MAX_TOKEN_CHARS = 16_384
