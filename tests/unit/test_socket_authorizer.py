"""The WebSocket API's $connect authorizer (issue 15.2), with real RS256 tokens signed by a key of a local JWKS:
what the HTTP API's JWT authorizer accepts it accepts, anything else is ``Unauthorized``."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from mneme.adapters.aws.jwt_verifier import JwksKeys, JwtVerifier, StaticKeys, parse_jwks
from mneme.api.socket_auth import ConnectRefused, authorize
from mneme.errors import Unauthorized

ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool1"
CLIENT = "app-client-1"
METHOD_ARN = "arn:aws:execute-api:eu-west-1:123456789012:abc123/live/$connect"


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


SIGNING, OTHER = _key(), _key()


def _jwks(*keys: tuple[str, rsa.RSAPrivateKey]) -> dict[str, Any]:
    entries = []
    for kid, key in keys:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
        entries.append({**jwk, "kid": kid, "alg": "RS256", "use": "sig"})
    return {"keys": entries}


VERIFIER = JwtVerifier(ISSUER, [CLIENT], StaticKeys(_jwks(("k1", SIGNING))))


def _token(key: Any = SIGNING, kid: str = "k1", algorithm: str = "RS256", **claims: Any) -> str:
    now = int(time.time())
    body = {"sub": "alice", "iss": ISSUER, "aud": CLIENT, "token_use": "id", "iat": now, "exp": now + 600, **claims}
    body = {k: v for k, v in body.items() if v is not None}
    return jwt.encode(body, key, algorithm=algorithm, headers={"kid": kid})


def _event(token: str | None = None, header: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "REQUEST", "methodArn": METHOD_ARN, "headers": {}}
    if token is not None:
        event["queryStringParameters"] = {"token": token}
    if header is not None:
        event["headers"]["Authorization"] = header
    return event


def test_an_id_token_of_the_pool_is_allowed_with_its_user_in_the_context() -> None:
    answer = authorize(VERIFIER, _event(_token()))
    assert answer["principalId"] == "alice"
    (statement,) = answer["policyDocument"]["Statement"]
    assert statement == {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": METHOD_ARN}
    assert answer["context"] == {"user_id": "alice", "is_admin": "false"}


def test_an_access_token_is_checked_by_its_client_id() -> None:
    token = _token(aud=None, token_use="access", client_id=CLIENT)
    assert VERIFIER.claims(token)["sub"] == "alice"
    with pytest.raises(Unauthorized):
        VERIFIER.claims(_token(aud=None, token_use="access", client_id="another-client"))


def test_the_token_may_come_as_a_bearer_header() -> None:
    assert authorize(VERIFIER, _event(header=f"Bearer {_token()}"))["principalId"] == "alice"


def test_admins_are_flagged_from_their_groups() -> None:
    claims: dict[str, Any] = {"cognito:groups": ["admin"]}
    answer = authorize(VERIFIER, _event(_token(**claims)))
    assert answer["context"]["is_admin"] == "true"


@pytest.mark.parametrize(
    ("case", "token"),
    [
        ("expired", lambda: _token(exp=int(time.time()) - 120, iat=int(time.time()) - 800)),
        ("another issuer", lambda: _token(iss="https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other")),
        ("another audience", lambda: _token(aud="someone-else")),
        ("no audience", lambda: _token(aud=None)),
        ("signed by another key", lambda: _token(key=OTHER)),
        ("an unknown kid", lambda: _token(kid="k9")),
        (
            "HS256 with the public key as secret",
            lambda: _token(key="not-a-secret-but-long-enough-1234", algorithm="HS256"),
        ),
        ("no sub", lambda: _token(sub=None)),
        ("no exp", lambda: _token(exp=None)),
        ("garbage", lambda: "not.a.jwt"),
        ("empty", lambda: ""),
    ],
)
def test_a_bad_token_is_unauthorized(case: str, token: Any) -> None:
    with pytest.raises(Unauthorized):
        VERIFIER.claims(token())
    with pytest.raises(ConnectRefused, match=r"^Unauthorized$"):
        authorize(VERIFIER, _event(token()))


def test_an_unsigned_token_is_unauthorized() -> None:
    claims = {"sub": "alice", "iss": ISSUER, "aud": CLIENT, "exp": int(time.time()) + 60}
    unsigned = jwt.encode(claims, None, algorithm="none")  # type: ignore[arg-type]
    with pytest.raises(Unauthorized):
        VERIFIER.claims(unsigned)


def test_no_token_at_all_is_refused() -> None:
    with pytest.raises(ConnectRefused):
        authorize(VERIFIER, _event())


def test_a_verifier_needs_an_issuer_and_an_audience() -> None:
    with pytest.raises(ValueError):
        JwtVerifier("", [CLIENT], StaticKeys(_jwks(("k1", SIGNING))))
    with pytest.raises(ValueError):
        JwtVerifier(ISSUER, [], StaticKeys(_jwks(("k1", SIGNING))))


def test_a_rotated_key_set_with_both_keys_accepts_both() -> None:
    verifier = JwtVerifier(ISSUER, [CLIENT], StaticKeys(_jwks(("k1", SIGNING), ("k2", OTHER))))
    assert verifier.claims(_token(key=OTHER, kid="k2"))["sub"] == "alice"
    assert verifier.claims(_token())["sub"] == "alice"


# ------------------------------------------------------------------------------------ RS256 and the JWKS
def _tampered(token: str, part: int) -> str:
    pieces = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(pieces[part] + "=" * (-len(pieces[part]) % 4)))
    raw[len(raw) // 2] ^= 0x01
    pieces[part] = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    return ".".join(pieces)


@pytest.mark.parametrize("part", [1, 2])
def test_a_token_changed_by_one_bit_fails_the_signature(part: int) -> None:
    token = _token()
    assert VERIFIER.claims(token)["sub"] == "alice"
    with pytest.raises(Unauthorized):
        VERIFIER.claims(_tampered(token, part))


def test_a_token_signed_with_another_hash_is_refused() -> None:
    header = {"alg": "RS512", "kid": "k1"}
    token = jwt.encode(
        {"sub": "alice", "iss": ISSUER, "aud": CLIENT, "exp": 4_000_000_000, "iat": 1}, SIGNING, "RS512", header
    )
    with pytest.raises(Unauthorized):
        VERIFIER.claims(token)


@pytest.mark.filterwarnings("ignore:The RSA key is 1024 bits")  # signing the test's weak token
def test_weak_and_foreign_keys_of_a_jwks_are_not_used() -> None:
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    document = _jwks(("weak", weak), ("k1", SIGNING))
    document["keys"].append({"kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"})
    keys = parse_jwks(document)
    assert set(keys) == {"k1"}
    verifier = JwtVerifier(ISSUER, [CLIENT], StaticKeys(document))
    with pytest.raises(Unauthorized):
        verifier.claims(_token(key=weak, kid="weak"))


class _Issuer:
    def __init__(self, *keys: tuple[str, rsa.RSAPrivateKey]) -> None:
        self.document = _jwks(*keys)
        self.fetches = 0
        self.now = 0.0

    def fetch(self, url: str) -> dict[str, Any]:
        self.fetches += 1
        return self.document


def test_an_unknown_kid_fetches_the_jwks_again_at_most_once_a_minute() -> None:
    issuer = _Issuer(("k1", SIGNING))
    keys = JwksKeys("https://issuer.example/.well-known/jwks.json", fetch=issuer.fetch, monotonic=lambda: issuer.now)
    verifier = JwtVerifier(ISSUER, [CLIENT], keys)
    verifier.claims(_token())
    issuer.document = _jwks(("k1", SIGNING), ("k2", OTHER))  # the issuer rotated in a new key
    issuer.now = 10.0
    with pytest.raises(Unauthorized):
        verifier.claims(_token(key=OTHER, kid="k2"))  # within the minute: not fetched again
    issuer.now = 70.0
    assert verifier.claims(_token(key=OTHER, kid="k2"))["sub"] == "alice"
    assert issuer.fetches == 2
    for _ in range(5):
        verifier.claims(_token())
    assert issuer.fetches == 2  # known keys are served from the cache


def test_the_jwks_is_read_again_after_an_hour() -> None:
    issuer = _Issuer(("k1", SIGNING))
    keys = JwksKeys("https://issuer.example/jwks", fetch=issuer.fetch, monotonic=lambda: issuer.now)
    keys.key("k1")
    issuer.now = 3601.0
    keys.key("k1")
    assert issuer.fetches == 2


def test_the_jwks_is_fetched_over_https_only() -> None:
    with pytest.raises(ValueError):
        JwksKeys("http://issuer.example/jwks")


def test_the_deployments_admin_group_is_matched_by_exact_name() -> None:
    # issue 31.11: the $connect authorizer uses MNEME_ADMIN_GROUP, not the default name, and only exactly
    ops_claims: dict[str, Any] = {"cognito:groups": ["ops"]}
    spaced_claims: dict[str, Any] = {"cognito:groups": ["ops admin", "admin"]}
    ops = authorize(VERIFIER, _event(_token(**ops_claims)), admin_group="ops")
    spaced = authorize(VERIFIER, _event(_token(**spaced_claims)), admin_group="ops")
    assert (ops["context"]["is_admin"], spaced["context"]["is_admin"]) == ("true", "false")
