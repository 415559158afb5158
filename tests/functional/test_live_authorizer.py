"""The $connect authorizer's Lambda handler end to end (issue 15.2): settings from the environment, the
issuer's JWKS fetched over HTTP by PyJWKClient from a local issuer (once, then cached), real RS256 tokens."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parents[2]
CLIENT = "local-client"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Issuer:
    """An OIDC issuer on loopback that serves its JWKS and counts the fetches."""

    def __init__(self) -> None:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key()))
        body = json.dumps({"keys": [{**jwk, "kid": "k1", "alg": "RS256", "use": "sig"}]}).encode()
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                issuer.fetches.append(self.path)
                found = self.path == "/.well-known/jwks.json"
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body if found else b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.fetches: list[str] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def token(self, **claims: Any) -> str:
        now = int(time.time())
        body = {"sub": "alice", "iss": self.url, "aud": CLIENT, "token_use": "id", "iat": now, "exp": now + 300}
        return jwt.encode({**body, **claims}, KEY, algorithm="RS256", headers={"kid": "k1"})


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    running = Issuer()
    yield running
    running.httpd.shutdown()


def _handler(monkeypatch: pytest.MonkeyPatch, issuer: Issuer) -> ModuleType:
    monkeypatch.setenv("MNEME_JWT_ISSUER", issuer.url)
    monkeypatch.setenv("MNEME_JWT_AUDIENCE", f"other-client, {CLIENT}")
    spec = importlib.util.spec_from_file_location("live_auth_app", ROOT / "functions" / "live_auth" / "app.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _connect(token: str) -> dict[str, Any]:
    return {
        "type": "REQUEST",
        "methodArn": "arn:aws:execute-api:us-east-1:1:api/live/$connect",
        "queryStringParameters": {"token": token},
    }


def test_the_handler_allows_a_token_of_its_issuer_and_fetches_the_jwks_once(monkeypatch, issuer: Issuer) -> None:
    app = _handler(monkeypatch, issuer)
    first = app.lambda_handler(_connect(issuer.token()), None)
    second = app.lambda_handler(_connect(issuer.token(sub="bob")), None)
    assert (first["principalId"], second["principalId"]) == ("alice", "bob")
    assert issuer.fetches == ["/.well-known/jwks.json"]  # cached for the container's life


def test_the_handler_refuses_a_token_for_another_audience(monkeypatch, issuer: Issuer) -> None:
    from mneme.api.socket_auth import ConnectRefused

    app = _handler(monkeypatch, issuer)
    with pytest.raises(ConnectRefused, match="Unauthorized"):
        app.lambda_handler(_connect(issuer.token(aud="not-ours")), None)


def test_an_unreachable_issuer_refuses_instead_of_failing(monkeypatch, issuer: Issuer) -> None:
    from mneme.api.socket_auth import ConnectRefused

    app = _handler(monkeypatch, issuer)
    token = issuer.token()
    issuer.httpd.shutdown()
    issuer.httpd.server_close()
    with pytest.raises(ConnectRefused):
        app.lambda_handler(_connect(token), None)
