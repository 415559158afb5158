"""A 401 of the local server carries its ``WWW-Authenticate`` challenge (issue 33.6): ``/mcp`` and the API
alike, ``invalid_token`` with the reason for a bad token, the bare ``Bearer`` scheme when none was sent — so an
MCP client knows to send a token instead of starting an OAuth flow."""

from __future__ import annotations

from tests.functional.local.support import LocalServer

LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


def _challenge(headers: dict[str, str]) -> str | None:
    return next((value for name, value in headers.items() if name.lower() == "www-authenticate"), None)


def test_mcp_with_a_bad_token_is_challenged_as_an_invalid_token(server: LocalServer) -> None:
    reply = server.request("POST", "/mcp", LIST_TOOLS, token="not-a-token", headers=MCP_ACCEPT)
    assert reply.status == 401
    challenge = _challenge(reply.headers)
    assert challenge is not None and challenge.startswith('Bearer realm="mneme", error="invalid_token", ')
    assert 'error_description="the token is not valid' in challenge


def test_mcp_without_a_token_is_challenged_without_an_error_code(server: LocalServer) -> None:
    reply = server.request("POST", "/mcp", LIST_TOOLS, headers=MCP_ACCEPT)
    assert (reply.status, _challenge(reply.headers)) == (401, 'Bearer realm="mneme"')


def test_an_api_route_with_an_expired_token_says_so(server: LocalServer) -> None:
    expired = server.token("alice", hours=-1)
    reply = server.request("GET", "/v1/agents", token=expired)
    assert reply.status == 401
    assert 'error_description="the token has expired"' in (_challenge(reply.headers) or "")


def test_an_accepted_token_gets_no_challenge(server: LocalServer) -> None:
    reply = server.request("GET", "/v1/agents", token=server.token("alice"))
    assert (reply.status, _challenge(reply.headers)) == (200, None)
