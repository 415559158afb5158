"""Which MCP tools a run offers and keeps (issue 20), with the in-memory MCP source: name order across servers,
tools that cannot be offered left out with a warning, the list fixed for the whole run, the approval modes."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.ports.mcp import McpCallResult, McpToolInfo
from mneme.spec_limits import MCP_MAX_DESCRIPTION_CHARS
from tests.functional.api.conftest import Api
from tests.functional.api.run_support import step_event
from tests.support.deps import World, make_world

OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}}


def info(name: str, schema: Any = None, description: str = "A tool.") -> McpToolInfo:
    return McpToolInfo(name, description, OBJECT if schema is None else schema)


@pytest.fixture
def world() -> World:
    return make_world(OfflineModel())


@pytest.fixture
def api(world: World) -> Api:
    return Api(world)


def put_agent(api: Api, *urls: tuple[str, str], **fields: Any) -> None:
    servers = [{"name": name, "url": url} for name, url in urls]
    reply = api.put("/v1/agents/master", {"label": "Master", "mcp_servers": servers, **fields})
    assert reply.status == 200, reply.text


def start(api: Api, text: str, **fields: Any) -> dict[str, Any]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": text, **fields})
    assert reply.status in (200, 202), reply.text
    body: dict[str, Any] = reply.body
    return body


def offered(api: Api, run_id: str, seq: int = 0) -> list[str]:
    request = api.get(f"/v1/runs/{run_id}/context").body["requests"][seq]
    return [tool["toolSpec"]["name"] for tool in request.get("toolConfig", {}).get("tools", [])]


def warnings(api: Api, run_id: str) -> list[str]:
    return [e["message"] for e in api.get(f"/v1/runs/{run_id}/events").body["events"] if e["type"] == "warning"]


def test_tools_of_several_servers_are_offered_in_name_order(api: Api, world: World) -> None:
    world.mcp.add("https://b.example/mcp", [info("zeta"), info("alpha")])
    world.mcp.add("https://a.example/mcp", [info("mid")])
    put_agent(api, ("zoo", "https://b.example/mcp"), ("ant", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    assert offered(api, run_id) == ["ant__mid", "zoo__alpha", "zoo__zeta"]


def test_a_tool_whose_namespaced_name_is_invalid_is_left_out_with_a_warning(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("ok"), info("has.dot"), info("x" * 70)])
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    assert offered(api, run_id) == ["srv__ok"]
    (warning,) = [w for w in warnings(api, run_id) if "not a valid tool name" in w]
    assert "has.dot" in warning


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "https://evil.example/schema.json"}}},
        {"type": "array"},
        {"type": "object", "properties": {"a": {"type": "string", "description": "y" * 20_000}}},
        {"type": "object", "properties": {"a": {"type": 5}}},
    ],
    ids=["remote-ref", "not-an-object", "too-large", "invalid"],
)
def test_a_tool_whose_schema_cannot_be_used_is_left_out_with_a_warning(
    api: Api, world: World, schema: dict[str, Any]
) -> None:
    world.mcp.add("https://a.example/mcp", [info("good"), info("bad", schema)])
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    assert offered(api, run_id) == ["srv__good"]
    assert any("input schema is not a usable object schema" in w and "bad" in w for w in warnings(api, run_id))


def test_a_local_ref_schema_is_offered_and_validates(api: Api, world: World) -> None:
    schema = {"type": "object", "$defs": {"City": {"type": "string"}}, "properties": {"city": {"$ref": "#/$defs/City"}}}
    world.mcp.add("https://a.example/mcp", [info("weather", schema)])
    put_agent(api, ("srv", "https://a.example/mcp"))
    body = start(api, '/tool srv__weather {"city": 7}')
    assert world.mcp.calls() == []
    assert "srv__weather (error): Error: srv__weather: invalid arguments" in body["output"]


def test_a_server_with_too_many_tools_offers_the_first_64_by_name(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info(f"t{n:03d}") for n in range(70)])
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    names = offered(api, run_id)
    assert (len(names), names[0], names[-1]) == (64, "srv__t000", "srv__t063")
    assert any("lists 70 tools" in w for w in warnings(api, run_id))


def test_long_descriptions_are_cut_and_missing_ones_are_written(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("long", description="d" * 5000), info("bare", description="")])
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    request = api.get(f"/v1/runs/{run_id}/context").body["requests"][0]
    descriptions = {t["toolSpec"]["name"]: t["toolSpec"]["description"] for t in request["toolConfig"]["tools"]}
    assert len(descriptions["srv__long"]) == MCP_MAX_DESCRIPTION_CHARS
    assert descriptions["srv__bare"] == "The tool bare of the MCP server srv."


def test_the_tools_found_at_run_start_serve_the_whole_run(api: Api, world: World) -> None:
    # Given a run waiting for the approval of an MCP tool call
    server = world.mcp.add("https://a.example/mcp", [info("lookup")], lambda name, args: f"found {args['q']}")
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, '/tool srv__lookup {"q": "cats"}', tool_approval="prompt")["run_id"]
    # When the server changes its tools, the container's cache is gone, and the owner approves
    server.tools = [info("other")]
    world.deps.mcp_catalog._entries.clear()
    events = api.get(f"/v1/runs/{run_id}/events").body["events"]
    call_id = next(e for e in events if e["type"] == "approval_requested")["calls"][0]["call_id"]
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, run_id)
    # Then the step called the tool offered at run start, from the checkpoint, without listing again
    run = api.get(f"/v1/runs/{run_id}").body
    assert (run["status"], "- srv__lookup: found cats" in run["output"]) == ("succeeded", True)
    assert len(world.mcp.lists()) == 1
    assert offered(api, run_id, seq=-1) == ["srv__lookup"]


def test_in_denied_mode_an_mcp_tool_is_refused_without_a_call(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("lookup")])
    put_agent(api, ("srv", "https://a.example/mcp"))
    body = start(api, '/tool srv__lookup {"q": "x"}', tool_approval="denied")
    assert world.mcp.calls() == []
    assert "srv__lookup (error): Error: tool calls are denied for this run" in body["output"]


def test_a_server_error_result_is_a_tool_error(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("lookup")], lambda name, args: McpCallResult("no such city", True))
    put_agent(api, ("srv", "https://a.example/mcp"))
    body = start(api, '/tool srv__lookup {"q": "Atlantis"}')
    assert "srv__lookup (error): Error: srv__lookup failed: no such city" in body["output"]


def test_a_server_removed_from_the_agent_mid_run_is_a_tool_error(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("lookup")])
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, '/tool srv__lookup {"q": "x"}', tool_approval="prompt")["run_id"]
    put_agent(api)  # the server is gone from the agent while the run waits
    events = api.get(f"/v1/runs/{run_id}/events").body["events"]
    call_id = next(e for e in events if e["type"] == "approval_requested")["calls"][0]["call_id"]
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, run_id)
    assert world.mcp.calls() == []
    assert "no longer available to this agent" in api.get(f"/v1/runs/{run_id}").body["output"]


def test_without_an_mcp_client_the_servers_are_a_warning(api: Api, world: World) -> None:
    world.deps.mcp = None
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    assert offered(api, run_id) == []
    assert any("not available in this deployment" in w for w in warnings(api, run_id))


def test_an_agent_without_mcp_servers_asks_no_server(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("lookup")])
    put_agent(api)
    start(api, "hello")
    assert world.mcp.seen == []


def test_the_preview_shows_the_mcp_tools_and_calls_none(api: Api, world: World) -> None:
    world.mcp.add("https://a.example/mcp", [info("lookup")])
    put_agent(api, ("srv", "https://a.example/mcp"))
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": '/tool srv__lookup {"q": "x"}'})
    names = [tool["toolSpec"]["name"] for tool in reply.body["request"]["toolConfig"]["tools"]]
    assert names == ["srv__lookup"]
    assert (len(world.mcp.lists()), world.mcp.calls()) == (1, [])


def test_a_sub_agent_offers_its_own_mcp_tools_not_its_parents(api: Api, world: World) -> None:
    world.mcp.add("https://parent.example/mcp", [info("p")])
    world.mcp.add("https://child.example/mcp", [info("c")])
    child = {"label": "Child", "mcp_servers": [{"name": "kid", "url": "https://child.example/mcp"}]}
    assert api.put("/v1/agents/child", child).status == 200
    put_agent(api, ("dad", "https://parent.example/mcp"), tools=["delegate-to-agent"], delegates=["child"])
    run_id = start(api, "/delegate child :: /tool kid__c {}")["run_id"]
    child_id = api.get(f"/v1/runs/{run_id}").body["children"][0]
    step_event(api, child_id, depth=1)
    assert offered(api, child_id) == ["kid__c"]
    assert [c.url for c in world.mcp.calls()] == ["https://child.example/mcp"]


def test_tools_beyond_the_run_budget_are_left_out_in_name_order_with_a_warning(api: Api, world: World) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": "z" * 15_000}}}
    world.mcp.add("https://a.example/mcp", [info(f"t{n:02d}", schema) for n in range(20)])
    put_agent(api, ("srv", "https://a.example/mcp"))
    run_id = start(api, "hello")["run_id"]
    names = offered(api, run_id)
    assert names == [f"srv__t{n:02d}" for n in range(13)]  # 13 specs of ~15,100 characters fit in 200,000
    assert any("larger than 200000 characters together; 7 not offered" in w for w in warnings(api, run_id))
