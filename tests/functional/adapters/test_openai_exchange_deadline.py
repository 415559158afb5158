"""The openai-compatible call's deadline bounds the whole exchange, headers included, and a 500 it retries is
read only up to the error limit: a server dripping its status line and headers a byte at a time (each byte
within any read timeout) never outlasts the call's timeout, and a 500 with a huge body costs at most
ERROR_BODY_MAX_BYTES of reading before the retry."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from mneme.adapters.models.openai import ERROR_BODY_MAX_BYTES, OpenAICompatibleModel, StaticKey
from mneme.errors import ModelTimedOut
from tests.support.openai_stub import ERROR_500, TEXT

REQUEST: dict[str, Any] = {"modelId": "m", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
DRIP_SECONDS = 5.0
HUGE_500 = 256 * 1024 * 1024  # the body a failing server announces and sends as fast as it can


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        0,
    )
    while len(body) < length:
        body += conn.recv(65536)


@contextmanager
def _raw_server(answer: Callable[[int, socket.socket], None]) -> Iterator[str]:
    """A loopback server that reads each request and lets ``answer(n, conn)`` write the n-th answer raw."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve_one(n: int, conn: socket.socket) -> None:
        with conn:
            try:
                _read_request(conn)
                answer(n, conn)
            except OSError:  # the client gave up
                pass

    def accept() -> None:
        n = 0
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve_one, args=(n, conn), daemon=True).start()
            n += 1

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        listener.close()


def _ok(conn: socket.socket, status_line: bool = True) -> None:
    body = json.dumps(TEXT).encode()
    rest = b"content-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body) + body
    conn.sendall((b"HTTP/1.1 200 OK\r\n" if status_line else b"") + rest)


def test_headers_dripping_in_past_the_timeout_are_a_timeout_at_the_timeout() -> None:
    head = b"HTTP/1.1 200 OK\r\nx-padding: " + b"a" * 200 + b"\r\n"

    def drip(n: int, conn: socket.socket) -> None:
        for position in range(len(head)):  # a byte every 25 ms: far within any read timeout
            conn.sendall(head[position : position + 1])
            time.sleep(DRIP_SECONDS / len(head))
        _ok(conn, status_line=False)

    with _raw_server(drip) as url:
        model = OpenAICompatibleModel(url, StaticKey(None), allow_private=True)
        started = time.monotonic()
        with pytest.raises(ModelTimedOut):
            model.converse(REQUEST, timeout_seconds=1.0)
        assert time.monotonic() - started < 2.5  # not DRIP_SECONDS


def test_headers_dripping_in_within_the_timeout_are_read() -> None:
    head = b"HTTP/1.1 200 OK\r\nx-padding: " + b"a" * 40 + b"\r\n"

    def drip(n: int, conn: socket.socket) -> None:
        for position in range(len(head)):
            conn.sendall(head[position : position + 1])
            time.sleep(1.0 / len(head))
        _ok(conn, status_line=False)

    with _raw_server(drip) as url:
        model = OpenAICompatibleModel(url, StaticKey(None), allow_private=True)
        assert model.converse(REQUEST, timeout_seconds=10.0).text == TEXT["choices"][0]["message"]["content"]


def test_a_500_with_a_huge_body_is_retried_after_reading_at_most_the_error_limit() -> None:
    sent_before_retry: list[int] = []
    sent = [0]

    def answer(n: int, conn: socket.socket) -> None:
        if n == 0:
            conn.sendall(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: %d\r\n\r\n" % HUGE_500)
            chunk = json.dumps(ERROR_500).encode().ljust(1024 * 1024)
            while sent[0] < HUGE_500:
                conn.sendall(chunk)
                sent[0] += len(chunk)
        else:
            sent_before_retry.append(sent[0])
            _ok(conn)

    with _raw_server(answer) as url:
        model = OpenAICompatibleModel(url, StaticKey(None), allow_private=True)
        assert model.converse(REQUEST, timeout_seconds=30.0).text == TEXT["choices"][0]["message"]["content"]
    # what the client read plus what the sockets' buffers held: far below the body, not all of it
    assert sent_before_retry and sent_before_retry[0] < 32 * 1024 * 1024 + ERROR_BODY_MAX_BYTES
