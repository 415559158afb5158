"""Issue 20 acceptance, the client side: an agent's run lists and calls the tools of a real MCP server built on
the SDK — approval in ``prompt`` mode, a schema violation and a server error as tool errors, an unreachable
server as a warning."""

from __future__ import annotations

import json

from mneme.adapters.mcp.client import SdkMcpToolSource
from tests.functional.api.conftest import Api
from tests.functional.api.run_support import step_event
from tests.functional.mcp.conftest import events, put_agent, run, tool_results
from tests.support.deps import World
from tests.support.mcp_server import McpTestServer, closed_port_url


def test_a_run_lists_the_servers_tools_and_calls_one(api: Api, mcp_server: McpTestServer) -> None:
    # Given an agent with the test server's tools
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    # When the model calls tools__add
    body = run(api, '/tool tools__add {"a": 2, "b": 3}')
    # Then the server ran add(2, 3) once and the answer holds its result
    assert mcp_server.tool_calls() == [("add", {"a": 2, "b": 3})]
    assert body["status"] == "succeeded"
    assert "- tools__add: 5" in body["output"]


def test_the_tools_are_offered_under_namespaced_names_in_name_order_with_their_schemas(
    api: Api, mcp_server: McpTestServer
) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, "hello")
    request = api.get(f"/v1/runs/{body['run_id']}/context").body["requests"][0]
    specs = [tool["toolSpec"] for tool in request["toolConfig"]["tools"]]
    assert [spec["name"] for spec in specs] == ["tools__add", "tools__big", "tools__echo", "tools__fail"]
    add = specs[0]
    assert add["description"] == "Add two integers."
    assert add["inputSchema"]["json"]["required"] == ["a", "b"]
    assert add["inputSchema"]["json"]["properties"]["a"]["type"] == "integer"


def test_every_call_is_an_event_with_server_tool_and_duration(api: Api, mcp_server: McpTestServer) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, '/tool tools__echo {"text": "hi"}')
    (done,) = [e for e in events(api, body["run_id"], "tool_call") if e["status"] != "requested"]
    assert (done["status"], done["tool"], done["server"], done["mcp_tool"]) == (
        "success",
        "tools__echo",
        "tools",
        "echo",
    )
    assert done["duration_ms"] > 0


def test_in_prompt_mode_the_run_waits_and_the_tool_is_called_once_the_owner_approves(
    api: Api, mcp_server: McpTestServer
) -> None:
    # Given a run in prompt mode whose model calls tools__add
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    waiting = run(api, '/tool tools__add {"a": 40, "b": 2}', tool_approval="prompt")
    run_id = waiting["run_id"]
    # Then it waits for a person, and the server has not been called
    assert waiting["status"] == "waiting_approval"
    (requested,) = events(api, run_id, "approval_requested")
    assert [c["tool"] for c in requested["calls"]] == ["tools__add"]
    assert mcp_server.tool_calls() == []
    # When the owner approves and the state machine steps the run again
    answer = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": requested["calls"][0]["call_id"], "decision": "once"})
    assert answer.status == 200
    step_event(api, run_id)
    # Then the tool was called once and its result is the answer
    assert mcp_server.tool_calls() == [("add", {"a": 40, "b": 2})]
    finished = api.get(f"/v1/runs/{run_id}").body
    assert finished["status"] == "succeeded"
    assert "- tools__add: 42" in finished["output"]


def test_a_denied_approval_never_reaches_the_server(api: Api, mcp_server: McpTestServer) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    run_id = run(api, '/tool tools__add {"a": 1, "b": 1}', tool_approval="prompt")["run_id"]
    (requested,) = events(api, run_id, "approval_requested")
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": requested["calls"][0]["call_id"], "decision": "deny"})
    step_event(api, run_id)
    assert mcp_server.tool_calls() == []
    assert "tools__add (error): Error: a person denied this tool call" in api.get(f"/v1/runs/{run_id}").body["output"]


def test_arguments_that_break_the_schema_are_a_tool_error_and_never_reach_the_server(
    api: Api, mcp_server: McpTestServer
) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, '/tool tools__add {"a": "two", "b": 3}')
    assert mcp_server.tool_calls() == []
    (result,) = tool_results(api, body["run_id"])
    assert result["status"] == "error"
    assert "tools__add: invalid arguments" in result["content"][0]["text"]
    assert body["status"] == "succeeded"  # the model was told, the run went on


def test_a_failure_on_the_server_is_a_tool_error_the_model_sees(api: Api, mcp_server: McpTestServer) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, '/tool tools__fail {"reason": "disk full"}')
    assert mcp_server.tool_calls("fail") == [("fail", {"reason": "disk full"})]
    (result,) = tool_results(api, body["run_id"])
    assert result["status"] == "error"
    assert "the tool failed on purpose: disk full" in result["content"][0]["text"]
    (done,) = [e for e in events(api, body["run_id"], "tool_call") if e["status"] == "error"]
    assert (done["server"], done["mcp_tool"]) == ("tools", "fail")
    assert body["status"] == "succeeded"


def test_an_unreachable_server_is_a_warning_and_the_run_still_succeeds(api: Api, mcp_server: McpTestServer) -> None:
    # Given an agent with a working server and one nobody listens for
    put_agent(api, {"name": "tools", "url": mcp_server.url}, {"name": "gone", "url": closed_port_url()})
    # When a run starts
    body = run(api, '/tool tools__echo {"text": "still here"}')
    # Then the unreachable server is a warning naming it, and the other server's tools still work
    (warning,) = [e for e in events(api, body["run_id"], "warning") if e.get("server") == "gone"]
    assert "MCP server 'gone' could not be reached" in warning["message"]
    assert body["status"] == "succeeded"
    assert "- tools__echo: still here" in body["output"]
    request = api.get(f"/v1/runs/{body['run_id']}/context").body["requests"][0]
    assert not [t for t in request["toolConfig"]["tools"] if t["toolSpec"]["name"].startswith("gone__")]


def test_a_result_over_the_cap_is_cut_with_a_note(api: Api, mcp_server: McpTestServer) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, '/tool tools__big {"size": 30000}')
    (result,) = tool_results(api, body["run_id"])
    text = result["content"][0]["text"]
    assert text.startswith("x" * 20_000)
    assert text.endswith("[cut: the result has 30000 characters; the first 20000 are shown]")


def test_a_response_over_the_byte_limit_is_a_tool_error(api: Api, world: World, mcp_server: McpTestServer) -> None:
    world.deps.mcp = SdkMcpToolSource(allow_private_networks=True, max_response_bytes=50_000)
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, '/tool tools__big {"size": 100000}')
    (result,) = tool_results(api, body["run_id"])
    assert result["status"] == "error"
    assert "larger than 50000 bytes" in result["content"][0]["text"]


def test_the_tool_configuration_is_byte_identical_from_run_to_run(
    api: Api, world: World, mcp_server: McpTestServer
) -> None:
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    first = run(api, "one")
    world.deps.mcp_catalog._entries.clear()  # discovered again, not served from the cache
    second = run(api, "two")
    configs = [
        json.dumps(api.get(f"/v1/runs/{body['run_id']}/context").body["requests"][0]["toolConfig"])
        for body in (first, second)
    ]
    assert configs[0] == configs[1]
    assert mcp_server.rpc_methods().count("tools/list") == 2


def test_the_tool_list_is_reused_for_the_ttl_and_asked_again_after_it(
    api: Api, world: World, mcp_server: McpTestServer
) -> None:
    # Given a container clock that only moves when told
    now = [1000.0]
    world.deps.monotonic = lambda: now[0]
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    # When three runs start: two within the TTL (60 s), one after it
    run(api, "one")
    now[0] += 59
    run(api, "two")
    listed_within_ttl = mcp_server.rpc_methods().count("tools/list")
    now[0] += 2
    run(api, "three")
    # Then the server was asked for its tools once within the TTL, and again after it
    assert listed_within_ttl == 1
    assert mcp_server.rpc_methods().count("tools/list") == 2


def test_on_aws_a_loopback_server_is_refused_before_any_request(
    api: Api, world: World, mcp_server: McpTestServer
) -> None:
    world.deps.mcp = SdkMcpToolSource(allow_private_networks=False)  # the AWS policy
    put_agent(api, {"name": "tools", "url": mcp_server.url})
    body = run(api, "hello")
    (warning,) = [e for e in events(api, body["run_id"], "warning") if e.get("server") == "tools"]
    assert "https" in warning["message"]
    assert mcp_server.seen == []
