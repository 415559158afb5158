"""How the run function reaches an MCP server (issue 20): a bearer token or OAuth client credentials from the
agent owner's secrets, the caller's user id in a header when configured, and both protocol eras."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mneme.models.common import GLOBAL_OWNER
from tests.functional.api.conftest import Api
from tests.functional.mcp.conftest import events, put_agent, run
from tests.support.deps import World
from tests.support.mcp_server import McpTestServer, OAuthClient


@pytest.fixture
def guarded() -> Iterator[McpTestServer]:
    server = McpTestServer(token="s3cret-token").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def oauth_server() -> Iterator[McpTestServer]:
    server = McpTestServer(oauth=OAuthClient("mneme-client", "client-secret")).start()
    try:
        yield server
    finally:
        server.stop()


def _bearer(server: McpTestServer, ref: str = "mneme/mcp/alice/tools") -> dict[str, object]:
    return {"name": "tools", "url": server.url, "auth": {"type": "bearer", "secret": ref}}


def test_a_bearer_token_is_read_from_the_agent_owners_secret(api: Api, world: World, guarded: McpTestServer) -> None:
    world.secrets.put("alice", "mneme/mcp/alice/tools", "s3cret-token")
    put_agent(api, _bearer(guarded))
    body = run(api, '/tool tools__add {"a": 1, "b": 2}')
    assert "- tools__add: 3" in body["output"]
    assert {r.headers["authorization"] for r in guarded.mcp_requests()} == {"Bearer s3cret-token"}
    assert set(world.secrets.reads) == {("alice", "mneme/mcp/alice/tools")}


def test_without_the_secret_the_server_is_a_warning_and_is_never_called(
    api: Api, world: World, guarded: McpTestServer
) -> None:
    put_agent(api, _bearer(guarded))
    body = run(api, "hello")
    (warning,) = [e for e in events(api, body["run_id"], "warning") if e.get("server") == "tools"]
    assert "does not exist" in warning["message"]
    assert guarded.seen == []


def test_a_wrong_token_is_a_warning_naming_the_refusal(api: Api, world: World, guarded: McpTestServer) -> None:
    world.secrets.put("alice", "mneme/mcp/alice/tools", "not-the-token")
    put_agent(api, _bearer(guarded))
    body = run(api, "hello")
    (warning,) = [e for e in events(api, body["run_id"], "warning") if e.get("server") == "tools"]
    assert "401" in warning["message"]


def _global_agent_with_secret(api: Api, world: World, guarded: McpTestServer, secret: str) -> None:
    """A global agent ``master`` calling ``guarded`` with the bearer token ``secret`` of the global folder."""
    world.secrets.put(GLOBAL_OWNER, "mneme/mcp/__global__/tools", secret)
    reply = api.put(
        "/v1/agents/master",
        {"label": "Master", "global": True, "mcp_servers": [_bearer(guarded, "mneme/mcp/__global__/tools")]},
        admin=True,
    )
    assert reply.status == 200, reply.text


def test_a_global_agent_reads_the_global_folder_never_the_callers(
    api: Api, world: World, guarded: McpTestServer
) -> None:
    _global_agent_with_secret(api, world, guarded, "s3cret-token")
    body = run(api, '/tool tools__add {"a": 2, "b": 2}', user="bob")
    assert "- tools__add: 4" in body["output"]
    assert set(world.secrets.reads) == {(GLOBAL_OWNER, "mneme/mcp/__global__/tools")}


def test_oauth_client_credentials_get_a_token_once_and_reuse_it(
    api: Api, world: World, oauth_server: McpTestServer
) -> None:
    world.secrets.put("alice", "mneme/mcp/alice/oauth", "client-secret")
    auth = {"type": "oauth_client_credentials", "token_url": oauth_server.token_url, "client_id": "mneme-client"}
    put_agent(api, {"name": "tools", "url": oauth_server.url, "auth": {**auth, "secret": "mneme/mcp/alice/oauth"}})
    first = run(api, '/tool tools__add {"a": 1, "b": 1}')
    second = run(api, '/tool tools__add {"a": 2, "b": 2}')
    assert "- tools__add: 2" in first["output"] and "- tools__add: 4" in second["output"]
    assert len(oauth_server.token_requests()) == 1
    assert {r.headers["authorization"] for r in oauth_server.mcp_requests()} == {"Bearer token-1"}


def test_a_revoked_oauth_token_is_replaced_and_the_call_goes_through(
    api: Api, world: World, oauth_server: McpTestServer
) -> None:
    world.secrets.put("alice", "mneme/mcp/alice/oauth", "client-secret")
    auth = {"type": "oauth_client_credentials", "token_url": oauth_server.token_url, "client_id": "mneme-client"}
    put_agent(api, {"name": "tools", "url": oauth_server.url, "auth": {**auth, "secret": "mneme/mcp/alice/oauth"}})
    run(api, "hello")
    assert oauth_server.oauth is not None
    oauth_server.oauth.tokens.append("rotated-elsewhere")  # the cached token-1 is no longer accepted
    body = run(api, '/tool tools__add {"a": 20, "b": 1}')
    assert "- tools__add: 21" in body["output"]
    assert len(oauth_server.token_requests()) == 2


def test_the_callers_user_id_is_sent_only_in_the_configured_header(api: Api, mcp_server: McpTestServer) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url, "forward_user_id_header": "X-Mneme-User"})
    run(api, '/tool tools__echo {"text": "hi"}')
    assert {r.headers.get("x-mneme-user") for r in mcp_server.mcp_requests()} == {"alice"}


def test_without_the_setting_no_user_id_is_sent(api: Api, mcp_server: McpTestServer) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    run(api, '/tool tools__echo {"text": "hi"}')
    assert all("alice" not in r.headers.values() for r in mcp_server.mcp_requests())


def test_a_2025_server_is_reached_through_the_initialize_handshake() -> None:
    server = McpTestServer(legacy=True).start()
    try:
        from mneme.adapters.mcp.client import SdkMcpToolSource
        from mneme.ports.mcp import McpEndpoint

        source = SdkMcpToolSource(allow_private_networks=True)
        endpoint = McpEndpoint(server.url, timeout_seconds=10)
        names = [tool.name for tool in source.list_tools(endpoint)]
        result = source.call_tool(endpoint, "add", {"a": 5, "b": 6})
    finally:
        server.stop()
    assert names == ["add", "echo", "fail", "big"]
    assert (result.text, result.is_error) == ("11", False)
    assert server.rpc_methods() == [
        "server/discover",  # once: the second operation goes straight to the handshake
        "initialize",
        "notifications/initialized",
        "tools/list",
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ]


def test_a_2026_server_is_negotiated_once_per_container(mcp_server: McpTestServer) -> None:
    from mneme.adapters.mcp.client import SdkMcpToolSource
    from mneme.ports.mcp import McpEndpoint

    source = SdkMcpToolSource(allow_private_networks=True)
    endpoint = McpEndpoint(mcp_server.url, timeout_seconds=10)
    source.list_tools(endpoint)
    source.call_tool(endpoint, "add", {"a": 1, "b": 1})
    assert mcp_server.rpc_methods() == ["server/discover", "tools/list", "tools/list", "tools/call"]


@pytest.mark.parametrize(
    "value",
    ['{\n  "token": "s3cret-token"\n}', "s3cret-token\r\nX-Injected: 1", "s3cret-token\x00"],
    ids=["pretty-printed-json", "crlf", "nul"],
)
def test_a_secret_no_http_header_can_carry_is_a_warning_that_never_shows_it(
    api: Api, world: World, guarded: McpTestServer, value: str
) -> None:
    # a global agent: the caller (bob) must never see the admin's secret in his run's events
    _global_agent_with_secret(api, world, guarded, value)
    body = run(api, "hello", user="bob")
    reply = api.get(f"/v1/runs/{body['run_id']}/events", user="bob")
    assert "s3cret-token" not in reply.text
    (warning,) = [e for e in reply.body["events"] if e["type"] == "warning" and e.get("server") == "tools"]
    assert "mneme/mcp/__global__/tools" in warning["message"] and "HTTP header" in warning["message"]
    assert guarded.seen == []


def test_a_secret_with_surrounding_whitespace_is_still_sent_trimmed(
    api: Api, world: World, guarded: McpTestServer
) -> None:
    world.secrets.put("alice", "mneme/mcp/alice/tools", "  s3cret-token\n")
    put_agent(api, _bearer(guarded))
    body = run(api, '/tool tools__add {"a": 1, "b": 2}')
    assert "- tools__add: 3" in body["output"]
