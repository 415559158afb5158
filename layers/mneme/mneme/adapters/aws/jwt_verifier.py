"""Verifying the Cognito (or any OIDC) JWT at the WebSocket API's ``$connect`` (issue 15.2).

The HTTP API checks tokens with API Gateway's own JWT authorizer; a WebSocket API has only Lambda
authorizers, so this verifier does the same checks: an ``RS256`` signature by a key of the issuer's JWKS
(``<issuer>/.well-known/jwks.json``, fetched on first use, cached for an hour, fetched again — at most once
a minute — when a token names a key it does not hold, as after a key rotation), ``exp`` / ``nbf`` / ``iat``,
the issuer, and the audience — ``aud`` of an ID token, or ``client_id`` of a Cognito access token
(``token_use: access``), as API Gateway's JWT authorizer accepts both. Anything else is
:class:`~mneme.errors.Unauthorized`.

PyJWT verifies the signature (its RS256, with ``cryptography``, which the layer ships for the MCP SDK) and
the claims, with keys of 2048 bits or more only.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import jwt
from jwt.algorithms import RSAAlgorithm

from mneme import observability
from mneme.errors import Unauthorized

#: tolerated clock difference between the issuer and this function, in seconds
LEEWAY_SECONDS = 30
MIN_KEY_BITS = 2048
JWKS_TTL_SECONDS = 3600.0
JWKS_REFRESH_SECONDS = 60.0


def public_key(jwk: Mapping[str, Any]) -> Any:
    """The RSA public key of one RS256 signing JWK; ValueError for anything else or a weak key."""
    if jwk.get("kty") != "RSA" or jwk.get("alg", "RS256") != "RS256" or jwk.get("use", "sig") != "sig":
        raise ValueError("not an RS256 signing key")
    try:
        key = RSAAlgorithm.from_jwk(dict(jwk))
    except jwt.InvalidKeyError as exc:
        raise ValueError(f"not a usable RSA key: {exc}") from exc
    numbers = key.public_numbers()  # type: ignore[union-attr]
    if numbers.n.bit_length() < MIN_KEY_BITS or numbers.e < 3 or numbers.e % 2 == 0:
        raise ValueError(f"an RSA key needs at least {MIN_KEY_BITS} bits and an odd exponent")
    return key


def parse_jwks(document: Mapping[str, Any]) -> dict[str, Any]:
    """The usable RS256 keys of a JWKS document, by ``kid`` (other keys are skipped)."""
    keys: dict[str, Any] = {}
    for jwk in document.get("keys") or []:
        try:
            keys[str(jwk["kid"])] = public_key(jwk)
        except (KeyError, TypeError, ValueError):
            continue
    return keys


def _https_get(url: str) -> Mapping[str, Any]:
    with urllib.request.urlopen(url, timeout=5) as response:
        document: Mapping[str, Any] = json.loads(response.read(1_000_000))
        return document


class JwksKeys:
    """The issuer's JWKS over HTTPS, cached (see the module doc); ``fetch`` is replaceable in tests."""

    def __init__(
        self,
        url: str,
        *,
        fetch: Callable[[str], Mapping[str, Any]] = _https_get,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme != "https" and parts.hostname not in ("127.0.0.1", "localhost"):
            raise ValueError("the JWKS must be fetched over https")
        self._url, self._fetch, self._now = url, fetch, monotonic
        self._keys: dict[str, Any] = {}
        self._fetched = float("-inf")
        self._lock = threading.Lock()

    def key(self, kid: str) -> Any:
        with self._lock:
            age = self._now() - self._fetched
            if age > JWKS_TTL_SECONDS or (kid not in self._keys and age > JWKS_REFRESH_SECONDS):
                self._refresh()
            key = self._keys.get(kid)
        if key is None:
            raise Unauthorized(f"the token's key {kid!r} is not one of the issuer's")
        return key

    def _refresh(self) -> None:
        try:
            self._keys = parse_jwks(self._fetch(self._url))
        except (OSError, ValueError) as exc:  # unreachable, or not JSON: no token is accepted meanwhile
            observability.logger().warning("the issuer's JWKS could not be read", error=str(exc))
            return
        self._fetched = self._now()


class StaticKeys:
    """Keys from a JWKS document already at hand (tests; an issuer whose keys are configured)."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self._keys = parse_jwks(document)

    def key(self, kid: str) -> Any:
        if kid not in self._keys:
            raise Unauthorized(f"the token's key {kid!r} is not one of the issuer's")
        return self._keys[kid]


def jwks_client(issuer: str) -> JwksKeys:
    return JwksKeys(f"{issuer.rstrip('/')}/.well-known/jwks.json")


class JwtVerifier:
    def __init__(self, issuer: str, audiences: Sequence[str], keys: JwksKeys | StaticKeys) -> None:
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
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "RS256":
                raise Unauthorized("the token is not signed with RS256")
            key = self._keys.key(str(header.get("kid") or ""))
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=["RS256"],
                options={
                    "verify_signature": True,
                    "verify_exp": True,
                    "verify_nbf": True,
                    "verify_iat": True,
                    "verify_iss": True,
                    "verify_aud": False,
                    "require": ["exp", "iat", "iss", "sub"],
                },
                issuer=self._issuer,
                leeway=LEEWAY_SECONDS,
            )
        except jwt.PyJWTError as exc:
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
