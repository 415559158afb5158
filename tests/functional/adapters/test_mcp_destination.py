"""Where the MCP client may connect on AWS (issue 20): https to public addresses only, checked by resolving
the host before each request."""

from __future__ import annotations

import pytest

from mneme.adapters.mcp.http import check_destination
from mneme.errors import McpUnavailable


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://8.8.8.8/mcp", "must use https"),
        ("https://localhost:9001/2018-06-01/runtime/invocation/next", "non-public address (127.0.0.1)"),
        ("https://127.0.0.1/mcp", "non-public address (127.0.0.1)"),
        ("https://169.254.169.254/latest/meta-data", "non-public address (169.254.169.254)"),
        ("https://[::1]/mcp", "non-public address (::1)"),
    ],
)
def test_a_destination_that_is_not_public_https_is_refused(url: str, reason: str) -> None:
    with pytest.raises(McpUnavailable, match=rf".*{reason.replace('(', '[(]').replace(')', '[)]')}"):
        check_destination(url, allow_private=False)


def test_a_public_address_is_allowed() -> None:
    check_destination("https://8.8.8.8/mcp", allow_private=False)


def test_local_mode_allows_this_machine() -> None:
    check_destination("http://localhost:8000/mcp", allow_private=True)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://127.1/mcp", "numeric host"),
        ("https://2852039166/mcp", "numeric host"),
        ("https://[::ffff:127.0.0.1]/mcp", "IPv6 form of an IPv4"),
        ("https://[64:ff9b::7f00:1]/mcp", "NAT64"),
    ],
)
def test_numeric_and_v4_carrying_forms_are_refused_at_call_time(url: str, reason: str) -> None:
    with pytest.raises(McpUnavailable, match=reason):
        check_destination(url, allow_private=False)


def test_a_name_resolving_to_a_nat64_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def resolve(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("64:ff9b::a9fe:a9fe", port, 0, 0))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    with pytest.raises(McpUnavailable, match="NAT64"):
        check_destination("https://rebind.example/mcp", allow_private=False)


def test_the_request_goes_to_the_checked_address_not_a_second_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rebinding name: public at the check, 127.0.0.1 afterwards. The connection must use the checked address,
    with the name kept for TLS (SNI) and the Host header."""
    import asyncio
    import socket

    import httpx2

    from mneme.adapters.mcp.http import guarded_transport

    answers = iter(["93.184.216.34", "127.0.0.1", "127.0.0.1"])

    def resolve(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    sent: list[httpx2.Request] = []

    async def fake_send(self: object, request: httpx2.Request) -> httpx2.Response:  # no traffic leaves
        sent.append(request)
        return httpx2.Response(200, content=b"{}")

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "handle_async_request", fake_send)
    transport = guarded_transport(False, 1000)
    request = httpx2.Request("POST", "https://rebind.example/mcp", content=b"{}")
    asyncio.run(transport.handle_async_request(request))
    (out,) = sent
    assert (out.url.host, out.headers["host"], out.extensions["sni_hostname"]) == (
        "93.184.216.34",
        "rebind.example",
        "rebind.example",
    )
