"""mneme's MCP server at ``/mcp`` through the run function's handler (issue 20): API Gateway events carrying
JSON-RPC, the caller from the JWT claims, the same use cases, security filter and audit as the HTTP API."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.functional.api.conftest import Api, Reply, add_agent
from tests.support.deps import World

ACCEPT = {"accept": "application/json, text/event-stream"}
LEGACY = {**ACCEPT, "mcp-protocol-version": "2025-11-25"}


def rpc(api: Api, method: str, params: dict[str, Any] | None = None, **options: Any) -> Reply:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        message["params"] = params
    headers = options.pop("headers", LEGACY)
    return api.post("/mcp", message, headers=headers, **options)


def call(api: Api, tool: str, arguments: dict[str, Any], **options: Any) -> dict[str, Any]:
    reply = rpc(api, "tools/call", {"name": tool, "arguments": arguments}, **options)
    assert reply.status == 200, reply.text
    result: dict[str, Any] = reply.body["result"]
    return result


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_initialize_answers_mnemes_server_info_and_tool_capability(api: Api) -> None:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    reply = rpc(api, "initialize", params, headers=ACCEPT)
    assert reply.status == 200
    result = reply.body["result"]
    assert result["serverInfo"]["name"] == "mneme"
    assert "tools" in result["capabilities"]
    assert "mcp-session-id" not in reply.headers  # stateless: no session to keep


def test_the_tools_are_the_four_of_the_issue_with_the_http_bodies_as_schemas(api: Api) -> None:
    tools = rpc(api, "tools/list").body["result"]["tools"]
    assert [t["name"] for t in tools] == ["memory-search", "memory-write", "memory-delete", "run-agent"]
    schemas = {t["name"]: t["inputSchema"] for t in tools}
    assert schemas["memory-search"]["required"] == ["query"]
    assert set(schemas["memory-write"]["required"]) == {"namespace", "content"}
    assert set(schemas["run-agent"]["required"]) == {"agent_id", "input"}


def test_a_write_then_a_search_finds_the_entry_and_both_are_audited_via_mcp(api: Api, world: World) -> None:
    written = call(api, "memory-write", {"namespace": "vector.user.${user_id}.memory", "content": "Alice likes tea."})
    assert written["isError"] is False
    assert written["structuredContent"]["namespace"] == "vector.user.alice.memory"
    found = call(api, "memory-search", {"query": "What does Alice like to drink?"})
    hits = found["structuredContent"]["hits"]
    assert [h["content"] for h in hits] == ["Alice likes tea."]
    records = world.deps.audit.query("alice").records
    assert {(r.action, r.detail.get("via")) for r in records} == {("write", "mcp"), ("read", "mcp")}


def test_a_search_asking_for_lines_gets_a_chat_line_with_the_line_said_after_it(api: Api) -> None:
    for content in ("Joanna: I finished my first screenplay!", "Joanna: A mix of drama and romance."):
        call(api, "memory-write", {"namespace": "vector.user.${user_id}.memory", "content": content})
    query = {"query": "Joanna: I finished my first screenplay!", "top_k": 1}
    (plain,) = call(api, "memory-search", query)["structuredContent"]["hits"]
    assert "context" not in plain
    (hit,) = call(api, "memory-search", {**query, "lines": True})["structuredContent"]["hits"]
    assert [line["content"] for line in hit["context"]] == ["Joanna: A mix of drama and romance."]


def test_a_write_into_another_users_namespace_is_refused_and_audited(api: Api, world: World) -> None:
    result = call(api, "memory-write", {"namespace": "vector.user.bob.memory", "content": "planted"})
    assert result["isError"] is True
    assert text(result).startswith("forbidden: ")
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.namespace, denied.detail["via"]) == ("vector.user.bob.memory", "mcp")
    assert (
        world.memory.search(world.embedder.embed(["planted"])[0], ["vector.user.bob.*"], 5, now=world.clock.now()) == []
    )


def test_a_search_naming_another_users_namespace_reads_nothing_of_it_and_is_audited(api: Api, world: World) -> None:
    call(api, "memory-write", {"namespace": "vector.user.bob.memory", "content": "bob's secret plan"}, user="bob")
    found = call(api, "memory-search", {"query": "bob's secret plan", "namespaces": ["vector.user.bob.*"]})
    assert found["structuredContent"]["hits"] == []
    assert found["structuredContent"]["namespaces"] == []
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.namespace, denied.detail["via"]) == ("vector.user.bob.*", "mcp")


def test_another_users_entry_cannot_be_deleted(api: Api, world: World) -> None:
    written = call(api, "memory-write", {"namespace": "vector.user.bob.memory", "content": "keep me"}, user="bob")
    doc_id = written["structuredContent"]["ids"][0]
    result = call(api, "memory-delete", {"id": doc_id})
    assert (result["isError"], text(result).startswith("not_found: ")) == (True, True)
    assert world.memory.get(doc_id, "vector.user.bob.memory") is not None
    assert not world.memory.get(doc_id, "vector.user.bob.memory").deleted  # type: ignore[union-attr]


def test_a_user_id_in_the_arguments_never_counts(api: Api, world: World) -> None:
    result = call(api, "memory-write", {"namespace": "vector.user.${user_id}.memory", "content": "x", "user_id": "bob"})
    assert result["structuredContent"]["namespace"] == "vector.user.alice.memory"


def test_run_agent_answers_the_agents_answer(api: Api, world: World) -> None:
    add_agent(world, "echo")
    result = call(api, "run-agent", {"agent_id": "echo", "input": "hello there"})
    assert (result["isError"], text(result)) == (False, "offline: hello there")
    assert result["structuredContent"]["status"] == "succeeded"
    assert result["structuredContent"]["output"] == "offline: hello there"


def test_run_agent_answers_the_run_id_and_status_of_a_run_that_waits(api: Api, world: World) -> None:
    add_agent(world, "searcher", tools=["memory-search"], tool_approval_default="prompt")
    result = call(api, "run-agent", {"agent_id": "searcher", "input": "/search tea"})
    run_id = result["structuredContent"]["run_id"]
    assert result["structuredContent"] == {"run_id": run_id, "status": "waiting_approval"}
    assert text(result) == f"the run {run_id} is waiting_approval; it continues in mneme (GET /v1/runs/{run_id})"


def test_run_agent_of_another_users_agent_is_not_found(api: Api, world: World) -> None:
    add_agent(world, "private", owner="bob")
    result = call(api, "run-agent", {"agent_id": "private", "input": "hi"})
    assert (result["isError"], text(result).startswith("not_found: ")) == (True, True)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("memory-search", {}, "invalid arguments: query: Field required"),
        ("memory-search", {"query": "x", "top_k": 99}, "invalid arguments: top_k:"),
        ("run-agent", {"agent_id": "Not A Slug", "input": "x"}, "invalid arguments: agent_id:"),
        ("memory-nuke", {}, "unknown tool 'memory-nuke'"),
    ],
)
def test_bad_arguments_are_a_tool_error_that_names_them(
    api: Api, tool: str, arguments: dict[str, Any], message: str
) -> None:
    result = call(api, tool, arguments)
    assert (result["isError"], text(result).startswith(message)) == (True, True), text(result)


def test_a_2026_request_is_answered_without_a_handshake(api: Api) -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    reply = rpc(
        api,
        "tools/list",
        {"_meta": meta},
        headers={**ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"},
    )
    assert reply.status == 200, reply.text
    assert len(reply.body["result"]["tools"]) == 4


def test_a_notification_is_accepted_with_202(api: Api) -> None:
    message = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    reply = api.post("/mcp", message, headers=LEGACY)
    assert (reply.status, reply.text) == (202, "")


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_other_methods_are_405_since_there_are_no_sessions(api: Api, method: str) -> None:
    reply = api.call(method, "/mcp", headers=ACCEPT)
    assert (reply.status, reply.headers["allow"]) == (405, "POST")


def test_without_a_verified_token_it_is_401(api: Api) -> None:
    reply = rpc(api, "tools/list", user=None)
    assert (reply.status, reply.body["error"]) == (401, "unauthorized")


def test_a_body_that_is_not_json_is_a_json_rpc_parse_error(api: Api) -> None:
    reply = api.post("/mcp", "{not json", headers=LEGACY)
    assert reply.status == 400
    assert reply.body["error"]["code"] == -32700


def test_a_body_not_sent_as_json_is_a_json_rpc_error_in_json(api: Api) -> None:
    reply = rpc(api, "tools/list", headers={**LEGACY, "content-type": "text/plain"})
    assert (reply.status, reply.headers["content-type"]) == (400, "application/json")
    assert reply.body["error"] == {"code": -32600, "message": "Invalid Content-Type header"}


def test_a_client_that_accepts_no_json_is_406(api: Api) -> None:
    reply = rpc(api, "tools/list", headers={"accept": "text/html", "mcp-protocol-version": "2025-11-25"})
    assert reply.status == 406


def test_the_openapi_document_describes_the_mcp_route(api: Api) -> None:
    document = json.loads(api.get("/v1/openapi.json", user=None).text)
    operation = document["paths"]["/mcp"]["post"]
    assert set(operation["responses"]) == {"200", "202", "default"}
    assert "memory-search" in operation["description"]


def test_a_call_from_inside_a_running_event_loop_answers_200_not_500(api: Api) -> None:
    import asyncio

    async def inside_a_loop() -> Reply:
        return rpc(api, "tools/list")

    reply = asyncio.run(inside_a_loop())
    assert reply.status == 200, reply.text
    assert "memory-search" in {t["name"] for t in reply.body["result"]["tools"]}


def test_a_search_with_explain_over_mcp_names_a_deleted_entry(api: Api, world: World) -> None:
    call(api, "memory-write", {"namespace": "vector.user.${user_id}.memory", "content": "Alice likes tea."})
    gone = call(api, "memory-write", {"namespace": "vector.user.${user_id}.memory", "content": "Alice liked coffee."})
    gone_id = gone["structuredContent"]["ids"][0]
    assert call(api, "memory-delete", {"id": gone_id})["isError"] is False
    found = call(api, "memory-search", {"query": "What does Alice like to drink?", "explain": True})
    dropped = found["structuredContent"]["explanation"]["dropped"]
    assert {d["id"]: d["reason"] for d in dropped} == {gone_id: "deleted"}
    reads = [r for r in world.deps.audit.query("alice", action="read").records]
    assert {r.detail["via"] for r in reads} == {"mcp"}


@pytest.mark.parametrize("request_id", [{"a": 1}, [1], True, 1.5, None])
def test_a_request_whose_id_is_not_a_string_or_an_integer_is_an_invalid_request(
    api: Api, world: World, request_id: Any
) -> None:
    params = {"name": "memory-write", "arguments": {"namespace": "vector.user.${user_id}.memory", "content": "Tea."}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    reply = api.post("/mcp", message, headers=LEGACY)
    assert reply.status == 400 and reply.body["error"]["code"] == -32600
    assert "id" in reply.body["error"]["message"] and world.memory.documents == {}


@pytest.mark.parametrize("version", ["1.0", None, 2])
def test_a_request_of_another_jsonrpc_version_is_an_invalid_request(api: Api, version: Any) -> None:
    message = {"jsonrpc": version, "id": 1, "method": "tools/list"}
    reply = api.post("/mcp", message, headers=LEGACY)
    assert reply.status == 400 and reply.body["error"]["code"] == -32600


@pytest.mark.parametrize("request_id", ["abc", 7, 0])
def test_a_string_or_integer_id_is_answered_with_it(api: Api, request_id: Any) -> None:
    reply = api.post("/mcp", {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}, headers=LEGACY)
    assert reply.status == 200 and reply.body["id"] == request_id
