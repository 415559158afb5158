"""The local server's own refusals are JSON like its other answers: an unknown method is a 405 naming the methods
there are (it was http.server's HTML 501), a header too long to read a JSON 431 (found by the long fuzz)."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from mneme_local.server import LocalHTTPServer


@pytest.mark.parametrize("method", ["TRACE", "QUERY", "FOO"])
def test_an_unknown_method_is_a_json_405_naming_the_methods_there_are(
    stub_server: LocalHTTPServer, method: str
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", stub_server.server_address[1], timeout=10)
    try:
        connection.request(method, "/v1/health")
        response = connection.getresponse()
        body = json.loads(response.read())
    finally:
        connection.close()
    assert (response.status, response.getheader("Content-Type")) == (405, "application/json")
    assert body["error"] == "method_not_allowed" and method in body["message"]
    assert "GET" in (response.getheader("Allow") or "")


def test_a_header_line_too_long_to_read_is_a_json_431(stub_server: LocalHTTPServer) -> None:
    with socket.create_connection(("127.0.0.1", stub_server.server_address[1]), timeout=10) as sock:
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
        answer = sock.makefile("rb").read()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431")
    assert b"Content-Type: application/json" in head
    assert json.loads(body)["error"] == "request_header_fields_too_large"


def test_a_known_method_still_reaches_the_api(stub_server: LocalHTTPServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", stub_server.server_address[1], timeout=10)
    try:
        connection.request("GET", "/v1/health")
        assert connection.getresponse().status == 200
    finally:
        connection.close()
