"""Verifying the Cognito (or any OIDC) JWT at the WebSocket API's ``$connect`` (issue 15.2).

The HTTP API checks tokens with API Gateway's own JWT authorizer; a WebSocket API has only Lambda
authorizers, so this verifier does the same checks: an ``RS256`` signature by a key of the issuer's JWKS
(``<issuer>/.well-known/jwks.json``, fetched on first use, cached for an hour, fetched again — at most once
a minute — when a token names a key it does not hold, as after a key rotation), ``exp`` / ``nbf`` / ``iat``,
the issuer, and the audience — ``aud`` of an ID token, or ``client_id`` of a Cognito access token
(``token_use: access``), as API Gateway's JWT authorizer accepts both. Anything else is
:class:`~mneme.errors.Unauthorized`.

PyJWT parses the token and checks the claims; the RS256 signature is verified by :class:`RS256`, registered
with PyJWT's ``PyJWS.register_algorithm``: RSASSA-PKCS1-v1_5 with SHA-256 as RFC 8017 §8.2.2 states it —
the expected encoded message is built and compared whole (never parsed), for keys of 2048 bits or more.
PyJWT's own RS256 needs ``cryptography``, whose 16.8 MB of native code would grow the layer by 58 %
(docs/deploy.md); the tests sign real tokens with ``cryptography`` and check this verifier against them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import jwt
from jwt.algorithms import Algorithm

from mneme import observability
from mneme.errors import Unauthorized

#: tolerated clock difference between the issuer and this function, in seconds
LEEWAY_SECONDS = 30
MIN_KEY_BITS = 2048
#: DER prefix of the DigestInfo of a SHA-256 digest (RFC 8017 §9.2, note 1)
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
JWKS_TTL_SECONDS = 3600.0
JWKS_REFRESH_SECONDS = 60.0


@dataclass(frozen=True)
class RsaPublicKey:
    n: int
    e: int

    @classmethod
    def from_jwk(cls, jwk: Mapping[str, Any]) -> RsaPublicKey:
        """An RSA signing key of a JWKS (``kty: RSA``); ValueError for anything else or a weak key."""
        if jwk.get("kty") != "RSA" or jwk.get("alg", "RS256") != "RS256" or jwk.get("use", "sig") != "sig":
            raise ValueError("not an RS256 signing key")
        n, e = _b64_int(str(jwk["n"])), _b64_int(str(jwk["e"]))
        if n.bit_length() < MIN_KEY_BITS or e < 3 or e % 2 == 0:
            raise ValueError(f"an RSA key needs at least {MIN_KEY_BITS} bits and an odd exponent")
        return cls(n, e)


def _b64_int(value: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)), "big")


class RS256(Algorithm):
    """RSASSA-PKCS1-v1_5 with SHA-256, verification only (RFC 8017 §8.2.2)."""

    def prepare_key(self, key: Any) -> RsaPublicKey:
        if not isinstance(key, RsaPublicKey):
            raise jwt.InvalidKeyError("an RsaPublicKey is needed")
        return key

    def verify(self, msg: bytes, key: Any, sig: bytes) -> bool:
        size = (key.n.bit_length() + 7) // 8
        if len(sig) != size:
            return False
        signature = int.from_bytes(sig, "big")
        if signature >= key.n:
            return False
        message = pow(signature, key.e, key.n).to_bytes(size, "big")
        digest = SHA256_DIGEST_INFO + hashlib.sha256(msg).digest()
        expected = b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest
        return hmac.compare_digest(message, expected)

    def sign(self, msg: bytes, key: Any) -> bytes:
        raise NotImplementedError("mneme only verifies RS256 signatures")

    @staticmethod
    def to_jwk(key_obj: Any, as_dict: bool = False) -> Any:
        raise NotImplementedError("mneme only verifies RS256 signatures")

    @staticmethod
    def from_jwk(jwk: str | Any) -> RsaPublicKey:
        return RsaPublicKey.from_jwk(json.loads(jwk) if isinstance(jwk, str) else jwk)


def parse_jwks(document: Mapping[str, Any]) -> dict[str, RsaPublicKey]:
    """The usable RS256 keys of a JWKS document, by ``kid`` (other keys are skipped)."""
    keys: dict[str, RsaPublicKey] = {}
    for jwk in document.get("keys") or []:
        try:
            keys[str(jwk["kid"])] = RsaPublicKey.from_jwk(jwk)
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
        self._keys: dict[str, RsaPublicKey] = {}
        self._fetched = float("-inf")
        self._lock = threading.Lock()

    def key(self, kid: str) -> RsaPublicKey:
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

    def key(self, kid: str) -> RsaPublicKey:
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
        self._jws = jwt.PyJWS(algorithms=[])  # nothing but the RS256 registered here
        self._jws.register_algorithm("RS256", RS256())

    def claims(self, token: str) -> dict[str, Any]:
        """The verified claims of ``token``; Unauthorized when anything is wrong with it."""
        if not token:
            raise Unauthorized("a token is required")
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "RS256":
                raise Unauthorized("the token is not signed with RS256")
            key = self._keys.key(str(header.get("kid") or ""))
            self._jws.decode_complete(token, key, algorithms=["RS256"])  # type: ignore[arg-type]  # the signature
            claims: dict[str, Any] = jwt.decode(  # the claims (the signature was just verified)
                token,
                options={
                    "verify_signature": False,
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
