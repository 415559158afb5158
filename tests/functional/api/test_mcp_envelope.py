"""A message ``/mcp`` cannot take as one JSON-RPC 2.0 request is -32600 Invalid Request saying what is wrong.

A batch (a JSON array), a body that is some other JSON value, and a request without a method (or with one that
is not a string) were answered -32602 "Invalid params" with the SDK's "4 validation errors for
union[JSONRPCRequest,…]" and pydantic's links: the wrong code, and a text about mneme's insides. A batch now says
MCP removed batching (2025-06-18); nothing in the answer names the SDK's models."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_mcp_endpoint import LEGACY
from tests.support.deps import World

WRITE = {"name": "memory-write", "arguments": {"namespace": "vector.user.${user_id}.memory", "content": "Tea."}}


def invalid_request(api: Api, body: Any) -> str:
    reply = api.post("/mcp", json.dumps(body), headers=LEGACY)
    assert (reply.status, reply.body["jsonrpc"], reply.body["error"]["code"]) == (400, "2.0", -32600), reply.text
    message: str = reply.body["error"]["message"]
    assert "validation error" not in message and "JSONRPC" not in message and "pydantic" not in message
    return message


def test_a_batch_is_an_invalid_request_saying_mcp_has_no_batching(api: Api, world: World) -> None:
    message = invalid_request(api, [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": WRITE}])
    assert "batch" in message and "2025-06-18" in message
    assert world.memory.documents == {}


def test_an_empty_batch_is_an_invalid_request(api: Api) -> None:
    assert "batch" in invalid_request(api, [])


@pytest.mark.parametrize("body", ["tools/list", 7, None, True])
def test_a_body_that_is_not_an_object_is_an_invalid_request(api: Api, body: Any) -> None:
    assert "object" in invalid_request(api, body)


@pytest.mark.parametrize("method", [None, 5, ["tools/list"], {"name": "ping"}])
def test_a_method_that_is_not_a_string_is_an_invalid_request(api: Api, method: Any) -> None:
    assert '"method"' in invalid_request(api, {"jsonrpc": "2.0", "id": 1, "method": method})


def test_a_request_without_a_method_is_an_invalid_request(api: Api) -> None:
    assert '"method" is required' in invalid_request(api, {"jsonrpc": "2.0", "id": 1})


def test_a_single_request_is_still_answered(api: Api) -> None:
    reply = api.post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=LEGACY)
    assert reply.status == 200 and reply.body["id"] == 1 and reply.body["result"]["tools"]


def test_a_clients_answer_without_a_method_is_still_taken(api: Api) -> None:
    reply = api.post("/mcp", {"jsonrpc": "2.0", "id": 1, "result": {}}, headers=LEGACY)
    assert reply.status == 202


@pytest.mark.parametrize("method", ["tools/call", "tools/list", "initialize", "ping"])
def test_a_request_sent_without_an_id_is_an_invalid_request_and_runs_nothing(
    api: Api, world: World, method: str
) -> None:
    message = invalid_request(api, {"jsonrpc": "2.0", "method": method, "params": WRITE})
    assert '"id" is required' in message and method in message
    assert world.memory.documents == {}


def test_a_notification_is_still_accepted(api: Api) -> None:
    reply = api.post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=LEGACY)
    assert (reply.status, reply.text) == (202, "")


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "id": 1, "error": 5},
        {"jsonrpc": "2.0", "id": 1, "result": 5},
        {"jsonrpc": "2.0", "method": "notifications/initialized", "params": 5},
    ],
)
def test_a_malformed_answer_or_notification_is_an_invalid_request_without_the_sdks_text(api: Api, body: Any) -> None:
    assert "JSON-RPC" in invalid_request(api, body)


@pytest.mark.parametrize("version", ["1999-01-01", "latest", ""])
def test_an_unsupported_protocol_version_is_a_400_naming_it(api: Api, version: str) -> None:
    headers = {**LEGACY, "mcp-protocol-version": version}
    reply = api.post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    assert reply.status == 400 and reply.body["error"]["code"] == -32600, reply.text
    assert "MCP-Protocol-Version" in reply.body["error"]["message"] and repr(version) in reply.body["error"]["message"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_a_supported_protocol_version_is_served(api: Api, version: str) -> None:
    headers = {**LEGACY, "mcp-protocol-version": version}
    reply = api.post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    assert reply.status == 200 and reply.body["result"]["tools"], reply.text
