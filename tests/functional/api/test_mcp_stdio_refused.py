"""stdio MCP servers are not supported (issue 33.6): an agent's ``mcp_servers`` entry that names a command to
start is refused at save with a 400 that says so and names the bridge; an HTTP entry is still saved."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.functional.api.conftest import Api
from tests.support.deps import make_world


@pytest.mark.parametrize(
    "server",
    [
        {"name": "files", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        {"name": "files", "transport": "stdio", "url": "http://127.0.0.1:8931/mcp"},
    ],
)
def test_a_stdio_server_is_refused_naming_the_bridge(api: Api, server: dict[str, Any]) -> None:
    reply = api.put("/v1/agents/files", {"label": "Files", "mcp_servers": [server]})
    assert (reply.status, reply.body["field"]) == (400, "mcp_servers.0")
    assert "stdio MCP servers" in reply.body["message"] and "mcp-proxy" in reply.body["message"]
    assert api.get("/v1/agents/files").status == 404


def test_the_bridges_http_url_is_saved_where_local_addresses_are_allowed() -> None:
    api = Api(make_world(OfflineModel(), MNEME_MCP_ALLOW_PRIVATE_NETWORKS="true"))  # as make run sets it
    server = {"name": "everything", "url": "http://127.0.0.1:8931/mcp"}
    reply = api.put("/v1/agents/everything", {"label": "Everything", "mcp_servers": [server]})
    assert reply.status == 200, reply.body


def test_the_readme_says_so_and_shows_the_bridge() -> None:
    from tests.functional.local.support import REPO

    readme = (REPO / "README.md").read_text()
    assert "**stdio MCP servers are not supported.**" in readme
    assert "npx -y mcp-proxy --port 8931 -- " in readme
