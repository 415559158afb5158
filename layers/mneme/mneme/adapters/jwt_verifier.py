"""Verifying the Cognito (or any OIDC) JWT at the WebSocket API's ``$connect`` (issue 15.2).

The HTTP API checks tokens with API Gateway's own JWT authorizer; a WebSocket API has only Lambda
authorizers, so this verifier does the same checks, with PyJWT: an ``RS256`` signature by a key of the
issuer's JWKS (``<issuer>/.well-known/jwks.json``, fetched on first use and cached; a new ``kid`` refreshes
it), ``exp`` / ``nbf`` / ``iat``, the issuer, and the audience — ``aud`` of an ID token, or ``client_id`` of a
Cognito access token (``token_use: access``), as API Gateway's JWT authorizer accepts both. Anything else is
:class:`~mneme.errors.Unauthorized`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import jwt

from mneme.errors import Unauthorized

ALGORITHMS = ("RS256",)
#: tolerated clock difference between the issuer and this function, in seconds
LEEWAY_SECONDS = 30


class SigningKeys(Protocol):
    def get_signing_key_from_jwt(self, token: str) -> Any:
        """The issuer's key that signed ``token`` (``.key``), by the token's ``kid``."""
        ...


class StaticKeys:
    """Keys from a JWKS document already at hand (tests; an issuer whose keys are configured)."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        self._keys = {key.key_id: key for key in jwt.PyJWKSet.from_dict(jwks).keys}

    def get_signing_key_from_jwt(self, token: str) -> Any:
        kid = jwt.get_unverified_header(token).get("kid")
        key = self._keys.get(kid)
        if key is None:
            raise jwt.PyJWKClientError(f"no key {kid!r} in the JWKS")
        return key


def jwks_client(issuer: str) -> SigningKeys:
    """The issuer's JWKS over HTTPS, cached for an hour (PyJWKClient)."""
    return jwt.PyJWKClient(f"{issuer.rstrip('/')}/.well-known/jwks.json", cache_keys=True, lifespan=3600, timeout=5)


class JwtVerifier:
    def __init__(self, issuer: str, audiences: Sequence[str], keys: SigningKeys) -> None:
        if not issuer or not audiences:
            raise ValueError("a JWT verifier needs an issuer and at least one audience")
        self._issuer = issuer.rstrip("/")
        self._audiences = frozenset(audiences)
        self._keys = keys

    def claims(self, token: str) -> dict[str, Any]:
        """The verified claims of ``token``; Unauthorized when anything is wrong with it."""
        if not token:
            raise Unauthorized("a token is required")
        try:
            if jwt.get_unverified_header(token).get("alg") not in ALGORITHMS:
                raise Unauthorized("the token is not signed with RS256")
            key = self._keys.get_signing_key_from_jwt(token).key
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=list(ALGORITHMS),
                issuer=self._issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "iss", "sub"], "verify_aud": False},
            )
        except (jwt.PyJWTError, jwt.PyJWKClientError) as exc:
            raise Unauthorized(f"the token is not valid: {exc}") from None
        if not self._audience_ok(claims):
            raise Unauthorized("the token is not meant for this API (audience)")
        return claims

    def _audience_ok(self, claims: dict[str, Any]) -> bool:
        if claims.get("token_use") == "access":
            return claims.get("client_id") in self._audiences
        aud = claims.get("aud")
        audiences = [aud] if isinstance(aud, str) else list(aud) if isinstance(aud, list) else []
        return bool(self._audiences.intersection(audiences))
