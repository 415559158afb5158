"""External tools (SPEC §8) are checked when the agent is saved: two tools with one name, or an input schema no
validator can compile, are a 400 naming the field — not an agent whose model sees one tool while its calls go to
another, or whose every call of the tool fails at run time."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.models.agent import ExternalTool
from tests.functional.api.conftest import Api, add_agent
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


def test_an_agent_stored_before_the_check_with_two_such_tools_still_loads(api: Api, world: World) -> None:
    # Given an agent stored with two tools of one name before saves refused it
    tools = [ExternalTool.model_validate(_tool(function=f)) for f in ("weather", "weather-v2")]
    add_agent(world, external_tools=tools)
    # Then the owner's other saves (which list every agent of the owner) and the agent's runs still work
    assert api.put("/v1/agents/forecaster", AGENT).status == 200
    assert api.post("/v1/runs", {"agent_id": "master", "input": "hello"}).status == 200


def test_external_tools_with_different_names_are_saved(api: Api) -> None:
    tools = [_tool("weather"), _tool("tides", "tides")]
    reply = api.put("/v1/agents/forecaster", {**AGENT, "external_tools": tools})
    assert reply.status == 200 and [t["name"] for t in reply.body["external_tools"]] == ["weather", "tides"]


#: schemas a JSON Schema validator cannot compile: a type JSON Schema does not have, a pattern that is no regular
#: expression, a keyword whose value has the wrong shape
BROKEN_SCHEMAS = [
    {"type": "object", "properties": {"city": {"type": "town"}}, "required": ["city"]},
    {"type": "object", "properties": {"city": {"type": "string", "pattern": "["}}},
    {"type": "object", "properties": "city"},
]


@pytest.mark.parametrize("schema", BROKEN_SCHEMAS)
def test_an_input_schema_no_validator_compiles_is_a_400_naming_the_tools_schema(
    api: Api, world: World, schema: dict[str, Any]
) -> None:
    # Given a second tool whose input schema cannot be compiled into a validator
    tools = [_tool("tides", "tides"), _tool(input_schema=schema)]
    reply = api.put("/v1/agents/forecaster", {**AGENT, "external_tools": tools})
    # Then the save is refused naming that tool's schema, and nothing is stored
    assert reply.status == 400, reply.text
    assert reply.body["field"] == "external_tools.1.input_schema"
    assert "'weather'" in reply.body["message"] and "input schema is invalid" in reply.body["message"]
    assert world.deps.config.get_agent("alice", "forecaster") is None


@pytest.mark.parametrize("schema", BROKEN_SCHEMAS)
def test_a_stored_tool_with_such_a_schema_is_a_tool_error_in_a_run_not_a_500(
    api: Api, world: World, schema: dict[str, Any]
) -> None:
    # Given an agent stored before its save was checked, with a tool whose schema cannot be compiled
    tool = ExternalTool.model_validate(_tool(input_schema=schema))
    add_agent(world, external_tools=[tool])
    # When its model calls the tool
    reply = api.post("/v1/runs", {"agent_id": "master", "input": '/tool weather {"city": "Paris"}'})
    # Then the run goes on: the call is a tool error the model reads, nothing reached the function
    assert reply.status == 200 and reply.body["status"] == "succeeded", reply.text
    assert "weather (error): Error: weather: the tool's input schema is invalid" in reply.body["output"]
    assert world.tools.calls == []
