"""The Lambda REQUEST authorizer of the WebSocket API's ``$connect`` (issue 15.2).

The token comes as the ``token`` query parameter (browsers cannot set headers on a WebSocket) or as
``Authorization: Bearer <JWT>``; it is verified like the HTTP API's JWT authorizer does
(:mod:`mneme.adapters.aws.jwt_verifier`) and the caller is derived from its claims exactly as for HTTP
(:func:`mneme.api.auth.caller_from_claims`). Allowed: an IAM policy for this ``$connect`` with the user in
the authorizer context; anything else raises ``Unauthorized``, which API Gateway answers with 401.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from mneme import observability
from mneme.api.auth import DEFAULT_ADMIN_GROUP, caller_from_claims
from mneme.errors import Unauthorized


class TokenVerifier(Protocol):
    def claims(self, token: str) -> dict[str, Any]: ...


class ConnectRefused(Exception):
    """Raised with the message ``Unauthorized``: API Gateway's signal for a 401 from a Lambda authorizer."""


def token_of(event: Mapping[str, Any]) -> str:
    query = event.get("queryStringParameters") or {}
    token = query.get("token") if isinstance(query, Mapping) else None
    if isinstance(token, str) and token:
        return token
    headers = {str(k).lower(): v for k, v in (event.get("headers") or {}).items()}
    value = str(headers.get("authorization") or "")
    return value[7:].strip() if value.lower().startswith("bearer ") else ""


def authorize(
    verifier: TokenVerifier, event: Mapping[str, Any], *, admin_group: str = DEFAULT_ADMIN_GROUP
) -> dict[str, Any]:
    """Allow this ``$connect`` for the token's user, or raise ConnectRefused("Unauthorized"); the caller is an
    admin when ``admin_group`` (the deployment's ``MNEME_ADMIN_GROUP``) is one of its groups by exact name."""
    try:
        caller = caller_from_claims(verifier.claims(token_of(event)), admin_group=admin_group)
    except Unauthorized as exc:
        observability.logger().info("WebSocket connect refused", reason=exc.message)
        raise ConnectRefused("Unauthorized") from None
    return {
        "principalId": caller.user_id,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": event.get("methodArn")}],
        },
        "context": {"user_id": caller.user_id, "is_admin": "true" if caller.is_admin else "false"},
    }
