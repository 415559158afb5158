"""A request must arrive in time and be framed one way. A client that announced a longer body than it sent used to
hold its connection and a server thread for ever (as did one dripping its headers or body a byte at a time); two
Content-Length headers, or one beside a Transfer-Encoding, were read by the first header (the shape of request
smuggling, which API Gateway refuses). Now the first is a JSON 408 (or the connection dropped) within the
server's ``read_timeout``, the second a 400, and a stuck client never delays anyone else's request."""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from mneme_local.server import LocalHTTPServer

TIMEOUT = 1.0  # the server's read timeout in these tests
POST = b"POST /v1/health HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"


def _answer(port: int, request: bytes, *, drip: float = 0.0, head: bytes = b"") -> tuple[bytes, float]:
    """What the server answers to ``head`` sent at once then ``request`` (at once, or a byte every ``drip``
    seconds), and how long it took."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(head)
            if drip:
                for byte in request:
                    sock.sendall(bytes([byte]))
                    time.sleep(drip)
            else:
                sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server gave up on the dripping client: what it answered is read below
        try:
            answer = sock.makefile("rb").read()
        except ConnectionResetError:
            answer = b""
    return answer, time.monotonic() - started


def _slow(stub_server: LocalHTTPServer) -> int:
    stub_server.read_timeout = TIMEOUT
    return int(stub_server.server_address[1])


def test_a_body_shorter_than_its_content_length_is_a_408_in_time(stub_server: LocalHTTPServer) -> None:
    answer, took = _answer(_slow(stub_server), POST + b"Content-Length: 100\r\n\r\n{}")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and json.loads(body)["error"] == "request_timeout"
    assert took < TIMEOUT + 3


def test_a_body_dripped_past_the_deadline_is_a_408(stub_server: LocalHTTPServer) -> None:
    body = b'{"name": "a dripping client"}'
    head = POST + b"Content-Length: %d\r\n\r\n" % len(body)
    answer, took = _answer(_slow(stub_server), body, drip=TIMEOUT / 4, head=head)
    assert answer.startswith(b"HTTP/1.1 408")
    assert took < len(body) * TIMEOUT / 4  # it was not read to the end


def test_headers_dripped_past_the_deadline_drop_the_connection(stub_server: LocalHTTPServer) -> None:
    request = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 40 + b"\r\n\r\n"
    answer, took = _answer(_slow(stub_server), request, drip=TIMEOUT / 4)
    assert not answer.startswith(b"HTTP/1.1 200")
    assert took < len(request) * TIMEOUT / 4


def test_a_body_sent_in_time_is_still_served(stub_server: LocalHTTPServer) -> None:
    body = b'{"name": "a"}'
    request = POST + b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    answer, _ = _answer(_slow(stub_server), request, drip=TIMEOUT / (4 * len(request)))
    assert answer.startswith(b"HTTP/1.1 200")


def test_stuck_clients_do_not_delay_another_request(stub_server: LocalHTTPServer) -> None:
    port = _slow(stub_server)
    stub_server.read_timeout = 30.0  # the stuck clients stay stuck for the whole test
    stuck = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
    try:
        for sock in stuck:
            sock.sendall(POST + b"Content-Length: 100\r\n\r\n{")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        started = time.monotonic()
        connection.request("GET", "/v1/health")
        assert connection.getresponse().status == 200
        assert time.monotonic() - started < 2
        connection.close()
    finally:
        for sock in stuck:
            sock.close()


def test_two_content_lengths_are_a_400(stub_server: LocalHTTPServer) -> None:
    request = POST + b"Content-Length: 2\r\nContent-Length: 7\r\n\r\n{}"
    answer, _ = _answer(int(stub_server.server_address[1]), request)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and "Content-Length" in json.loads(body)["message"]


def test_a_content_length_beside_chunked_is_a_400(stub_server: LocalHTTPServer) -> None:
    request = POST + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
    answer, _ = _answer(int(stub_server.server_address[1]), request)
    assert answer.startswith(b"HTTP/1.1 400")


def test_one_content_length_is_served(stub_server: LocalHTTPServer) -> None:
    request = POST + b"Connection: close\r\nContent-Length: 2\r\n\r\n{}"
    answer, _ = _answer(int(stub_server.server_address[1]), request)
    assert answer.startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize("coding", ["gzip", "xchunked", "gzip, chunked", "identity"])
def test_a_transfer_coding_other_than_chunked_is_a_400_and_its_body_no_next_request(
    stub_server: LocalHTTPServer, coding: str
) -> None:
    hidden = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"  # read as a second request, were the body skipped
    request = POST + b"Transfer-Encoding: " + coding.encode() + b"\r\n\r\n" + hidden
    answer, _ = _answer(int(stub_server.server_address[1]), request)
    assert answer.startswith(b"HTTP/1.1 400") and answer.count(b"HTTP/1.1 ") == 1, answer[:300]


def test_a_chunked_body_is_served(stub_server: LocalHTTPServer) -> None:
    request = POST + b"Connection: close\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
    answer, _ = _answer(int(stub_server.server_address[1]), request)
    assert answer.startswith(b"HTTP/1.1 200")
