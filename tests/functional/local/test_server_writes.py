"""How the local server writes its answers: one write per response, TCP_NODELAY on (no Nagle stall)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """Every socket send made off the test's thread (i.e. by the server): (bytes, TCP_NODELAY at the time)."""
    recorded: list[tuple[int, int]] = []
    main = threading.get_ident()
    original_send, original_sendall = socket.socket.send, socket.socket.sendall

    def record(sock: socket.socket, data: Any) -> None:
        if threading.get_ident() != main:
            recorded.append((len(data), sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)))

    def send(self: socket.socket, data: Any, *args: Any) -> int:
        record(self, data)
        return original_send(self, data, *args)

    def sendall(self: socket.socket, data: Any, *args: Any) -> None:
        record(self, data)
        original_sendall(self, data, *args)

    monkeypatch.setattr(socket.socket, "send", send)
    monkeypatch.setattr(socket.socket, "sendall", sendall)
    yield recorded


def test_each_keep_alive_response_leaves_in_one_write_with_nodelay(stub_server, sends) -> None:
    # Given one keep-alive connection
    connection = http.client.HTTPConnection("127.0.0.1", stub_server.server_address[1], timeout=10)
    try:
        for _ in range(3):
            # When a request is answered on it
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            body = response.read()
            # Then the answer is whole and the connection stays open
            assert (response.status, json.loads(body)) == (200, {"ok": 1})
            assert response.getheader("Connection") != "close"
    finally:
        connection.close()
    # And every response went out as one write (status line, headers and body together), with TCP_NODELAY
    assert len(sends) == 3
    assert all(nodelay for _size, nodelay in sends)
    assert all(size > len(b'{"ok": 1}') for size, _nodelay in sends)


def test_an_expect_100_request_gets_its_interim_answer_before_sending_the_body(stub_server, sends) -> None:
    # Given a client that announces its body and waits for 100 Continue before sending it
    with socket.create_connection(("127.0.0.1", stub_server.server_address[1]), timeout=10) as client:
        body = b'{"input": "x"}'
        client.sendall(
            b"POST /v1/health HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Expect: 100-continue\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        # Then the interim answer arrives without the body having been sent
        assert client.recv(1024).startswith(b"HTTP/1.1 100")
        client.sendall(body)
        assert b"200 OK" in client.recv(4096)
