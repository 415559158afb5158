"""A ``tools/call`` whose params do not say which tool to call with what (no ``name``, ``arguments`` that are not
an object, ``params`` that are not an object) is a JSON-RPC "Invalid params" error that names the member at fault
and answers the request's id — not the SDK's bare "Invalid request parameters" with empty data, nor a dump of
pydantic's union errors; nothing is called."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_mcp_endpoint import LEGACY
from tests.support.deps import World

WRITE = {"namespace": "vector.user.${user_id}.memory", "content": "Tea."}


@pytest.mark.parametrize(
    ("params", "member"),
    [
        ({"arguments": WRITE}, "params.name"),
        ({"name": "", "arguments": WRITE}, "params.name"),
        ({"name": ["memory-write"], "arguments": WRITE}, "params.name"),
        ({"name": "memory-write", "arguments": "namespace=vector.user.alice.memory"}, "params.arguments"),
        ({"name": "memory-write", "arguments": [WRITE]}, "params.arguments"),
        ("memory-write", "params"),
        (["memory-write", WRITE], "params"),
    ],
)
def test_a_tools_call_without_a_usable_name_or_arguments_names_the_member(
    api: Api, world: World, params: Any, member: str
) -> None:
    message = {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": params}
    reply = api.post("/mcp", message, headers=LEGACY)
    error = reply.body["error"]
    assert error["code"] == -32602 and reply.body["id"] == 41, reply.text
    assert f'"{member}"' in error["message"] and "pydantic" not in error["message"]
    assert world.memory.documents == {}


def test_a_tools_call_without_params_names_them(api: Api) -> None:
    reply = api.post("/mcp", {"jsonrpc": "2.0", "id": "c1", "method": "tools/call"}, headers=LEGACY)
    assert reply.body["error"]["code"] == -32602 and reply.body["id"] == "c1", reply.text
    assert '"params"' in reply.body["error"]["message"]


def test_a_call_without_arguments_still_reaches_the_tool(api: Api) -> None:
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory-search"}}
    reply = api.post("/mcp", message, headers=LEGACY)
    assert reply.status == 200 and reply.body["result"]["isError"] is True
    assert "query" in reply.body["result"]["content"][0]["text"]
