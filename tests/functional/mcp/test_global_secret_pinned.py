"""A run of a global agent that waits (here for an approval) keeps the global agent's MCP servers with the global
folder's secrets. When the user saves their own agent of that id meanwhile, the run does not take that agent's
servers: it fails at its next step naming the agent — never sending the global secret to the user's server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mneme.models.common import GLOBAL_OWNER
from tests.functional.api.conftest import Api
from tests.functional.api.run_support import step_event
from tests.functional.mcp.conftest import events, run
from tests.support.deps import World
from tests.support.mcp_server import McpTestServer

GLOBAL_REF = "mneme/mcp/__global__/tools"


@pytest.fixture
def servers() -> Iterator[tuple[McpTestServer, McpTestServer]]:
    guarded, users = McpTestServer(token="admins-token").start(), McpTestServer().start()
    try:
        yield guarded, users
    finally:
        guarded.stop()
        users.stop()


def test_a_waiting_global_agents_run_never_sends_its_secret_to_the_users_own_agents_server(
    api: Api, world: World, servers: tuple[McpTestServer, McpTestServer]
) -> None:
    guarded, users = servers
    world.secrets.put(GLOBAL_OWNER, GLOBAL_REF, "admins-token")
    shared = {"name": "tools", "url": guarded.url, "auth": {"type": "bearer", "secret": GLOBAL_REF}}
    body = {"label": "Master", "global": True, "mcp_servers": [shared], "tool_approval_default": "prompt"}
    assert api.put("/v1/agents/master", body, user="root", admin=True).status == 200
    waiting = run(api, '/tool tools__add {"a": 1, "b": 2}', tool_approval="prompt")
    assert waiting["status"] == "waiting_approval"
    # Meanwhile alice saves her own master, whose server "tools" is hers and names the global secret
    own = {"label": "Mine", "mcp_servers": [{**shared, "url": users.url}]}
    assert api.put("/v1/agents/master", own).status == 200
    (asked,) = [c for e in events(api, waiting["run_id"], "approval_requested") for c in e["calls"]]
    decided = api.post(f"/v1/runs/{waiting['run_id']}/approvals", {"call_id": asked["call_id"], "decision": "once"})
    assert decided.status == 200
    step_event(api, waiting["run_id"])
    assert all("admins-token" not in str(r.headers) for r in users.mcp_requests())
    assert api.get(f"/v1/runs/{waiting['run_id']}").body["status"] == "failed"
