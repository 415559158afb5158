"""Token verification of the local server, as API Gateway's JWT authorizer does it.

The ``Authorization: Bearer <JWT>`` header is verified against the local development key
(:mod:`mneme_local.token`); the verified claims are rendered as strings the way the authorizer passes them
to the Lambda (``requestContext.authorizer.jwt.claims``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jwt

from mneme_local.token import verify


class AuthError(Exception):
    pass


def claims_for_event(claims: Mapping[str, Any]) -> dict[str, str]:
    """Claims as API Gateway's JWT authorizer passes them: strings, arrays as ``[a b]``."""
    rendered: dict[str, str] = {}
    for name, value in claims.items():
        if isinstance(value, list):
            rendered[name] = "[" + " ".join(str(v) for v in value) + "]"
        elif isinstance(value, bool):
            rendered[name] = "true" if value else "false"
        elif isinstance(value, dict):
            rendered[name] = json.dumps(value, separators=(",", ":"))
        else:
            rendered[name] = str(value)
    return rendered


def authenticate(key: bytes, authorization: str | None) -> dict[str, Any]:
    if not authorization:
        raise AuthError("the Authorization header is missing (Authorization: Bearer <token>)")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("the Authorization header must be 'Bearer <token>'")
    try:
        return verify(key, token.strip())
    except jwt.ExpiredSignatureError as exc:
        raise AuthError("the token has expired") from exc
    except jwt.InvalidSignatureError as exc:
        raise AuthError(
            "the token's signature is not valid for this server's key (each data folder has its own key: make the "
            "token with the server's MNEME_DATA_DIR, e.g. MNEME_DATA_DIR=<its folder> make token USER=<you>)"
        ) from exc
    except jwt.InvalidTokenError as exc:
        raise AuthError(f"the token is not valid: {exc}") from exc
