"""External tools (SPEC §8) are checked when the agent is saved: two tools with one name, or an input schema no
validator can compile, are a 400 naming the field — not an agent whose model sees one tool while its calls go to
another, or whose every call of the tool fails at run time."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT
from tests.support.deps import World


def _tool(name: str = "weather", function: str = "weather", **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"calls {function}",
        "function_arn": f"arn:aws:lambda:us-east-1:123456789012:function:{function}",
        **fields,
    }


def test_two_external_tools_with_one_name_are_a_400_naming_external_tools(api: Api, world: World) -> None:
    # Given two external tools that both call themselves "weather" (the model would see the first, the call
    # would reach the second's function)
    tools = [_tool(function="weather"), _tool(function="weather-v2")]
    reply = api.put("/v1/agents/forecaster", {**AGENT, "external_tools": tools})
    # Then the save is refused with the field and the name, and nothing is stored
    assert reply.status == 400, reply.text
    assert reply.body["field"] == "external_tools" and "'weather'" in reply.body["message"]
    assert world.deps.config.get_agent("alice", "forecaster") is None


def test_external_tools_with_different_names_are_saved(api: Api) -> None:
    tools = [_tool("weather"), _tool("tides", "tides")]
    reply = api.put("/v1/agents/forecaster", {**AGENT, "external_tools": tools})
    assert reply.status == 200 and [t["name"] for t in reply.body["external_tools"]] == ["weather", "tides"]
