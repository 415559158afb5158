"""Issue 31.8 for openai-compatible model endpoints (``mneme.adapters.models.egress``): MCP's egress rules at
call time — a destination is refused by its text and by every address its name resolves to, the socket goes
to the address checked (never a second resolution), a redirect is never followed, and an error names a short
status, never the body. Private networks are allowed only where the deployment says so (local mode)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import urllib3.util.connection

from mneme.adapters.models.egress import guarded_session
from mneme.adapters.models.openai import OpenAICompatibleModel, StaticKey
from mneme.errors import ModelRequestRejected, ModelUnavailable
from tests.support.openai_stub import TEXT, StubServer, openai_stub
from tests.support.serving import serving

REQUEST: dict[str, Any] = {"modelId": "gpt-4o", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
PUBLIC = "93.184.216.34"


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with openai_stub() as server:
        yield server


class Dns:
    """``socket.getaddrinfo`` answering from a script (one answer per call, the last one repeated)."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        self.asked.append(host)
        address = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Where urllib3 opens sockets: recorded, and refused (no network in tests)."""
    seen: list[tuple[str, int]] = []

    def refuse(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        seen.append(address)
        raise ConnectionRefusedError("test: no network")

    monkeypatch.setattr(urllib3.util.connection, "create_connection", refuse)
    return seen


def _aws(url: str) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(url, StaticKey("sk-test"), allow_private=False)


@pytest.mark.parametrize(
    "address", ["127.0.0.1", "10.0.0.5", "169.254.169.254", "::1", "64:ff9b::a9fe:a9fe", "::ffff:127.0.0.1"]
)
def test_a_name_resolving_to_a_refused_address_is_rejected_before_any_socket(
    address: str, monkeypatch: pytest.MonkeyPatch, connects: list[tuple[str, int]]
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", Dns(address))
    with pytest.raises(ModelRequestRejected, match="refused in this deployment"):
        _aws("https://llm.example.com/v1").converse(REQUEST)
    assert connects == []


def test_a_name_resolving_to_a_public_address_is_connected_to(
    monkeypatch: pytest.MonkeyPatch, connects: list[tuple[str, int]]
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", Dns(PUBLIC))
    with pytest.raises(ModelUnavailable, match="could not be reached"):  # the test's network refuses it
        _aws("https://llm.example.com/v1").converse(REQUEST)
    assert connects[0] == (PUBLIC, 443)


def test_the_socket_goes_to_the_checked_address_not_a_second_resolution(
    monkeypatch: pytest.MonkeyPatch, connects: list[tuple[str, int]]
) -> None:
    # a rebinding name: public when checked, loopback on any later lookup
    monkeypatch.setattr(socket, "getaddrinfo", Dns(PUBLIC, "127.0.0.1"))
    with pytest.raises(ModelUnavailable):
        _aws("https://rebind.example/v1").converse(REQUEST)
    assert connects == [(PUBLIC, 443)]  # the retry's new lookup (loopback) is refused, never connected to


@pytest.mark.parametrize(
    "url",
    [
        "https://127.1/v1",
        "https://2852039166/v1",
        "https://0x7f.0.0.1/v1",
        "https://[::ffff:169.254.169.254]/v1",
        "https://localhost/v1",
        "http://llm.example.com/v1",
    ],
)
def test_numeric_loopback_and_plain_http_urls_are_refused_before_any_lookup(
    url: str, monkeypatch: pytest.MonkeyPatch, connects: list[tuple[str, int]]
) -> None:
    dns = Dns(PUBLIC)
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    with pytest.raises(ModelRequestRejected, match="refused in this deployment"):
        _aws(url).converse(REQUEST)
    assert (dns.asked, connects) == ([], [])


def test_where_private_networks_are_allowed_a_loopback_server_is_called(stub: StubServer) -> None:
    stub.reply(TEXT)
    model = OpenAICompatibleModel(stub.base_url, StaticKey(None), allow_private=True)
    assert model.converse(REQUEST).text.startswith("Why don't skeletons")
    assert len(stub.received) == 1


def test_a_pinned_connection_keeps_the_name_for_the_host_header(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the checked public address is "reached" (the socket is made to the stub), the request still names the host
    port = int(stub.base_url.split(":")[2].split("/")[0])
    opened: list[tuple[str, int]] = []

    def to_stub(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        opened.append(address)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.connect(("127.0.0.1", port))  # (socket.getaddrinfo is scripted here: not used for this one)
        return sock

    monkeypatch.setattr(socket, "getaddrinfo", Dns(PUBLIC))
    monkeypatch.setattr(urllib3.util.connection, "create_connection", to_stub)
    stub.reply(TEXT)
    session = guarded_session(allow_private=False, retry=0, pool_size=1)
    reply = session.post(f"http://llm.example.com:{port}/v1/chat/completions", data=b"{}", timeout=5)
    assert reply.status_code == 200 and opened == [(PUBLIC, port)]
    assert stub.received[0].headers["host"] == f"llm.example.com:{port}"


@pytest.fixture
def redirector(stub: StubServer) -> Iterator[str]:
    """A loopback endpoint that answers every POST with a 307 to the stub."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(307)
            self.send_header("Location", f"{stub.base_url}/chat/completions")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"


def test_a_redirect_is_never_followed(redirector: str, stub: StubServer) -> None:
    stub.reply(TEXT)
    model = OpenAICompatibleModel(redirector, StaticKey("sk-test"), allow_private=True)
    with pytest.raises(ModelRequestRejected, match=r"redirect \(307\)"):
        model.converse(REQUEST)
    assert stub.received == []


INTERNAL = "INTERNAL-ADMIN-PANEL db=10.0.0.7 user=root"


@pytest.mark.parametrize("status", [400, 404, 429, 500, 502])
def test_an_error_names_its_status_and_short_code_never_the_body(stub: StubServer, status: int) -> None:
    stub.reply(*[(status, {"error": {"message": INTERNAL, "type": "server_error"}})] * 2)
    model = OpenAICompatibleModel(stub.base_url, StaticKey(None), allow_private=True)
    with pytest.raises(ModelUnavailable) as caught:
        model.converse(REQUEST)
    assert f"({status} server_error)" in caught.value.message
    assert "INTERNAL" not in caught.value.message + str(caught.value.details)


def test_a_code_that_is_no_short_token_is_replaced_by_the_status(stub: StubServer) -> None:
    stub.reply((400, {"error": {"message": "x", "code": f"<html>{INTERNAL}</html>"}}))
    model = OpenAICompatibleModel(stub.base_url, StaticKey(None), allow_private=True)
    with pytest.raises(ModelRequestRejected) as caught:
        model.converse(REQUEST)
    assert "(400 400)" in caught.value.message and "INTERNAL" not in str(caught.value.details)
