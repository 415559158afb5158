"""Agent runs against a real MCP server (the SDK's, on loopback) through the run function's HTTP handler, with
the run function's MCP client: the official SDK adapter (``SdkMcpToolSource``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.mcp.client import SdkMcpToolSource
from mneme.adapters.models.offline import OfflineModel
from tests.functional.api.conftest import Api
from tests.support.deps import World, make_world
from tests.support.mcp_server import McpTestServer


@pytest.fixture
def mcp_server() -> Iterator[McpTestServer]:
    server = McpTestServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel(), MNEME_MCP_ALLOW_PRIVATE_NETWORKS="true")
    world.deps.mcp = SdkMcpToolSource(allow_private_networks=True)  # loopback: local mode's policy
    return world


@pytest.fixture
def api(world: World) -> Api:
    return Api(world)


def put_agent(api: Api, *servers: dict[str, Any], **fields: Any) -> None:
    reply = api.put("/v1/agents/master", {"label": "Master", "mcp_servers": list(servers), **fields})
    assert reply.status == 200, reply.text


def run(api: Api, text: str, *, user: str = "alice", **fields: Any) -> dict[str, Any]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": text, **fields}, user=user)
    assert reply.status in (200, 202), reply.text
    body: dict[str, Any] = reply.body
    return body


def events(api: Api, run_id: str, type_: str | None = None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.get(f"/v1/runs/{run_id}/events").body["events"]
    return [e for e in found if type_ is None or e["type"] == type_]


def tool_results(api: Api, run_id: str) -> list[dict[str, Any]]:
    """The toolResult blocks of the run's last model request (what the model saw)."""
    requests = api.get(f"/v1/runs/{run_id}/context").body["requests"]
    return [
        block["toolResult"]
        for message in requests[-1]["messages"]
        for block in message["content"]
        if "toolResult" in block
    ]
