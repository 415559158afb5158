"""mneme's OpenSearch client over a real HTTP socket: what it signs, what it retries, how errors come back."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from mneme.adapters.opensearch.http import OpenSearchHTTPError, SignedOpenSearch

CREDENTIALS = Credentials("AKIDEXAMPLE", "secret", "token")


class Scripted:
    """A local HTTP server answering from a script of (status, body, delay) and recording every request."""

    def __init__(self, script: list[tuple[int, Any, float]]) -> None:
        self.script = list(script)
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.seen.append((self.command, self.path, dict(self.headers.items()), data))
                status, body, delay = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                time.sleep(delay)
                payload = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_HEAD = _answer  # noqa: N815 - http.server's method names

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Scripted] = []

    def start(*script: tuple[int, Any, float]) -> Scripted:
        servers.append(Scripted(list(script)))
        return servers[-1]

    yield start
    for server in servers:
        server.server.shutdown()
        server.server.server_close()


def _fields(authorization: str) -> dict[str, str]:
    scheme, _, rest = authorization.partition(" ")
    assert scheme == "AWS4-HMAC-SHA256"
    return dict(part.strip().split("=", 1) for part in rest.split(","))


def _signature_of(url: str, seen: tuple[str, str, dict[str, str], bytes], body: bytes, service: str) -> str:
    """The SigV4 signature of the request ``seen`` by the server, re-signed over ``body`` with the headers the
    client signed and its timestamp."""
    method, path, headers, _ = seen
    by_name = {k.lower(): v for k, v in headers.items()}
    signed = _fields(headers["Authorization"])["SignedHeaders"].split(";")
    request = AWSRequest(method, url + path, data=body, headers={h: by_name[h] for h in signed})
    request.context["timestamp"] = by_name["x-amz-date"]
    auth = SigV4Auth(CREDENTIALS.get_frozen_credentials(), service, "eu-west-1")
    return str(auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request))


@pytest.mark.parametrize("service", ["aoss", "es"])
def test_a_request_is_signed_over_the_bytes_it_sends(serve, service):
    server = serve((200, {"hits": {"hits": []}}, 0))
    client = SignedOpenSearch(server.url, region="eu-west-1", service=service, credentials=CREDENTIALS)
    client.search(index="mem 1", body={"query": {"term": {"namespace": "vector.user.alice.memory"}}})
    [(method, path, headers, body)] = server.seen
    assert (method, path) == ("POST", "/mem%201/_search")
    assert json.loads(body) == {"query": {"term": {"namespace": "vector.user.alice.memory"}}}
    assert headers["X-Amz-Content-SHA256"] == hashlib.sha256(body).hexdigest()
    assert headers["X-Amz-Security-Token"] == "token"
    fields = _fields(headers["Authorization"])
    assert fields["Credential"].startswith("AKIDEXAMPLE/") and fields["Credential"].endswith(
        f"/eu-west-1/{service}/aws4_request"
    )
    signed = fields["SignedHeaders"].split(";")
    assert {"host", "x-amz-date", "x-amz-security-token", "content-type"} <= set(signed)
    # re-sign what the server received: the same signature only if the client signed these exact bytes
    assert fields["Signature"] == _signature_of(server.url, server.seen[0], body, service)


def test_a_tampered_body_no_longer_matches_the_signature(serve):
    server = serve((200, {}, 0))
    SignedOpenSearch(server.url, region="eu-west-1", service="aoss", credentials=CREDENTIALS).search(
        index="m", body={"size": 1}
    )
    [seen] = server.seen
    assert _fields(seen[2]["Authorization"])["Signature"] != _signature_of(server.url, seen, b'{"size":2}', "aoss")


def test_without_credentials_nothing_is_signed(serve):
    server = serve((200, {"found": True, "_source": {}}, 0))
    SignedOpenSearch(server.url).get(index="m", id="1:0:Ab/c", _source_excludes=["embedding"])
    [(method, path, headers, _)] = server.seen
    assert (method, path) == ("GET", "/m/_doc/1%3A0%3AAb%2Fc?_source_excludes=embedding")
    assert "Authorization" not in headers and "X-Amz-Content-SHA256" not in headers


def test_bulk_sends_ndjson_with_its_refresh(serve):
    server = serve((200, {"errors": False, "items": []}, 0))
    SignedOpenSearch(server.url).bulk(body=[{"index": {"_index": "m"}}, {"content": "é"}], refresh="wait_for")
    [(_, path, headers, body)] = server.seen
    assert path == "/_bulk?refresh=wait_for"
    assert headers["Content-Type"] == "application/x-ndjson"
    assert body.decode().splitlines() == ['{"index":{"_index":"m"}}', '{"content":"é"}']
    assert body.endswith(b"\n")


def test_an_unavailable_answer_is_retried_until_it_succeeds(serve):
    server = serve((503, {"error": "busy"}, 0), (429, {"error": "slow down"}, 0), (200, {"acknowledged": True}, 0))
    assert SignedOpenSearch(server.url).indices.create(index="m", body={}) == {"acknowledged": True}
    assert len(server.seen) == 3


def test_retries_end_with_the_last_error(serve):
    server = serve((502, {"error": {"type": "bad_gateway", "reason": "upstream"}}, 0))
    with pytest.raises(OpenSearchHTTPError) as raised:
        SignedOpenSearch(server.url, max_retries=2).search(index="m", body={})
    assert (raised.value.status, raised.value.error, raised.value.reason) == (502, "bad_gateway", "upstream")
    assert len(server.seen) == 3


def test_a_client_error_is_not_retried_and_keeps_its_type(serve):
    error = {"type": "resource_already_exists_exception", "reason": "index [m] already exists"}
    server = serve((400, {"error": error, "status": 400}, 0))
    with pytest.raises(OpenSearchHTTPError) as raised:
        SignedOpenSearch(server.url).indices.create(index="m", body={})
    assert (raised.value.status, raised.value.error) == (400, "resource_already_exists_exception")
    assert len(server.seen) == 1


def test_a_read_timeout_is_not_retried(serve):
    server = serve((200, {}, 1.5))
    with pytest.raises(OpenSearchHTTPError) as raised:
        SignedOpenSearch(server.url, timeout=0.3).bulk(body=[{"index": {"_index": "m"}}, {"a": 1}])
    assert (raised.value.status, raised.value.error) == (None, "read_timeout")
    assert len(server.seen) == 1  # a write that may have been applied is not sent twice


def test_a_refused_connection_is_an_error_without_a_status():
    with pytest.raises(OpenSearchHTTPError) as raised:
        SignedOpenSearch("http://127.0.0.1:9", timeout=1, max_retries=1).search(index="m", body={})
    assert (raised.value.status, raised.value.error) == (None, "connection_error")


def test_exists_answers_by_status(serve):
    present, missing = serve((200, None, 0)), serve((404, None, 0))
    assert SignedOpenSearch(present.url).indices.exists(index="m") is True
    assert SignedOpenSearch(missing.url).indices.exists(index="m") is False
    assert [seen[0] for seen in present.seen + missing.seen] == ["HEAD", "HEAD"]


def test_a_missing_document_is_a_404_error(serve):
    server = serve((404, {"_index": "m", "_id": "x", "found": False}, 0))
    with pytest.raises(OpenSearchHTTPError) as raised:
        SignedOpenSearch(server.url).get(index="m", id="x")
    assert (raised.value.status, raised.value.error) == (404, "not_found")


def test_a_proxy_from_the_environment_carries_the_requests(serve, monkeypatch):
    proxy = serve((200, {"hits": {"hits": []}}, 0))
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    SignedOpenSearch("http://search.example.invalid:9200").search(index="m", body={})
    [(method, target, _, _)] = proxy.seen
    assert (method, target) == ("POST", "http://search.example.invalid:9200/m/_search")


def test_no_proxy_exempts_the_endpoint(serve, monkeypatch):
    direct = serve((200, {"hits": {"hits": []}}, 0))
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert SignedOpenSearch(direct.url).search(index="m", body={}) == {"hits": {"hits": []}}
    assert [seen[1] for seen in direct.seen] == ["/m/_search"]
