"""What an MCP server's answers may cost one operation: the operation's timeout bounds it whole (headers and
bodies dripping a byte at a time, an SSE stream that never ends), an answer over the byte limit fails the
operation at once and says so (the SDK reported a cut-off SSE event as "SSE stream ended without a response"
and resumed the stream for a fresh budget), and a server that ends its SSE stream unanswered again and again
is resumed only a few times (it was resumed hundreds of times a second until the timeout)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from mneme.adapters.mcp.client import SdkMcpToolSource
from mneme.adapters.mcp.http import MAX_RESUMPTIONS
from mneme.errors import McpUnavailable
from mneme.ports.mcp import McpEndpoint

LIMIT = 256 * 1024  # the byte limit of these tests' clients
NOTE = b'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n'


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        part = conn.recv(65536)
        if not part:
            raise OSError("closed")
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            while len(body) < int(line.split(b":", 1)[1]):
                body += conn.recv(65536)
    return head


class _Server:
    """A loopback server answering every request with ``answer(send)``; it counts the requests."""

    def __init__(self, answer: Callable[[Callable[[bytes], None]], None]) -> None:
        self.answer, self.requests = answer, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/mcp"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                while True:  # keep-alive: one answer per request
                    _read_request(conn)
                    self.requests += 1
                    self.answer(conn.sendall)
            except OSError:
                pass


@contextmanager
def _serve(answer: Callable[[Callable[[bytes], None]], None]) -> Iterator[_Server]:
    server = _Server(answer)
    try:
        yield server
    finally:
        server.listener.close()


def _sse_head(send: Callable[[bytes], None]) -> None:
    send(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")


def _chunk(send: Callable[[bytes], None], data: bytes) -> None:
    send(b"%x\r\n%s\r\n" % (len(data), data))


def _list_tools(url: str, timeout: float = 3.0) -> tuple[str, float]:
    source = SdkMcpToolSource(allow_private_networks=True, max_response_bytes=LIMIT)
    started = time.monotonic()
    with pytest.raises(McpUnavailable) as failure:
        source.list_tools(McpEndpoint(url=url, timeout_seconds=timeout))
    return str(failure.value), time.monotonic() - started


def test_headers_dripping_past_the_timeout_end_the_operation_at_the_timeout() -> None:
    def drip(send: Callable[[bytes], None]) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nx-padding: " + b"a" * 1000:
            send(bytes([byte]))
            time.sleep(0.02)

    with _serve(drip) as server:
        message, took = _list_tools(server.url, timeout=1.0)
    assert message == "no answer within 1 s" and took < 2.0


def test_an_sse_stream_that_never_ends_ends_the_operation_at_the_timeout() -> None:
    def pings(send: Callable[[bytes], None]) -> None:
        _sse_head(send)
        while True:
            _chunk(send, b": ping\n\n" + NOTE)
            time.sleep(0.02)

    with _serve(pings) as server:
        message, took = _list_tools(server.url, timeout=1.0)
    assert message == "no answer within 1 s" and took < 2.0


@pytest.mark.parametrize("resumable", [False, True])
def test_an_sse_event_over_the_byte_limit_fails_the_operation_at_once_saying_so(resumable: bool) -> None:
    def huge(send: Callable[[bytes], None]) -> None:
        _sse_head(send)
        if resumable:  # an event id: the SDK would resume the stream, and read the next LIMIT bytes
            _chunk(send, b"id: 1\nretry: 0\n" + NOTE)
        _chunk(send, b"data: ")
        while True:
            _chunk(send, b"a" * 65536)

    with _serve(huge) as server:
        message, took = _list_tools(server.url)
        assert message == f"the server's answer is larger than {LIMIT} bytes"
        assert server.requests == 1 and took < 1.5


def test_an_answer_within_the_byte_limit_is_read() -> None:
    from tests.support.mcp_server import McpTestServer  # a real MCP server, its answers within the limit

    server = McpTestServer().start()
    try:
        tools = SdkMcpToolSource(allow_private_networks=True, max_response_bytes=LIMIT).list_tools(
            McpEndpoint(url=server.url, timeout_seconds=10)
        )
    finally:
        server.stop()
    assert "add" in [tool.name for tool in tools]


def test_a_stream_ended_unanswered_again_and_again_is_resumed_a_few_times_only() -> None:
    def ends(send: Callable[[bytes], None]) -> None:
        _sse_head(send)
        _chunk(send, b"id: 1\nretry: 0\n" + NOTE)
        send(b"0\r\n\r\n")

    with _serve(ends) as server:
        message, took = _list_tools(server.url, timeout=3.0)
        assert message == f"the server ended its SSE stream without an answer more than {MAX_RESUMPTIONS} times"
        assert server.requests <= MAX_RESUMPTIONS + 1 and took < 1.5
