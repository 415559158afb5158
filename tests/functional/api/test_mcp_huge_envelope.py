"""An MCP message whose id, method or tool name is megabytes long is a JSON-RPC error that quotes none of it.

Each was echoed whole — the id in the answer, the method in "Method not found", the tool name in "unknown tool" —
and 590,000 emoji (2.4 MB, within the body limit; 12 bytes each as JSON) made a response over Lambda's 6 MB:
API Gateway answered a bare 500 (SPEC §10: never a 500 for bad input)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from tests.functional.api.conftest import Api
from tests.functional.api.test_mcp_endpoint import LEGACY

HUGE = "\U0001f600" * 590_000


def post(api: Api, message: dict[str, Any]) -> Any:
    reply = api.post("/mcp", json.dumps(message, ensure_ascii=False), headers=LEGACY)
    assert len(json.dumps(reply.text)) < LAMBDA_RESPONSE_BYTES, reply.text[:300]
    return reply


@pytest.mark.parametrize(
    ("message", "member"),
    [
        ({"jsonrpc": "2.0", "id": HUGE, "method": "ping"}, '"id"'),
        ({"jsonrpc": "2.0", "id": 3, "method": HUGE}, '"method"'),
    ],
)
def test_an_id_or_method_of_megabytes_is_an_invalid_request(api: Api, message: dict[str, Any], member: str) -> None:
    reply = post(api, message)
    assert (reply.status, reply.body["error"]["code"], reply.body["id"]) == (400, -32600, None), reply.text[:300]
    assert member in reply.body["error"]["message"]


def test_a_tool_name_of_megabytes_is_invalid_params_with_the_requests_id(api: Api) -> None:
    reply = post(api, {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": HUGE, "arguments": {}}})
    assert (reply.body["error"]["code"], reply.body["id"]) == (-32602, 5), reply.text[:300]
    assert '"params.name"' in reply.body["error"]["message"]


def test_a_long_id_and_an_unknown_method_of_ordinary_length_are_still_answered_as_before(api: Api) -> None:
    reply = post(api, {"jsonrpc": "2.0", "id": "i" * 256, "method": "resources/" + "x" * 200})
    assert reply.body["id"] == "i" * 256
    assert reply.body["error"]["code"] == -32601 and reply.body["error"]["data"] == "resources/" + "x" * 200
