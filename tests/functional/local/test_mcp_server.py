"""Issue 20 acceptance, the server side: the official ``mcp`` client SDK against mneme's own ``/mcp`` on the real
local server (``make run`` in a subprocess, real HTTP, a token from ``make token``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.functional.local.support import Client as HttpClient
from tests.functional.local.support import LocalServer

T = TypeVar("T")


def with_mcp(server: LocalServer, token: str, operation: Callable[[Client], Awaitable[T]], *, mode: str = "auto") -> T:
    async def session() -> T:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            stream = streamable_http_client(f"{server.base}/mcp", http_client=http, terminate_on_close=False)
            async with Client(stream, mode=mode) as client:
                return await operation(client)

    return anyio.run(session)


@pytest.fixture(scope="module")
def alice(server: LocalServer) -> str:
    return server.token("alice")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_mcp_client_lists_mnemes_tools(server: LocalServer, alice: str, mode: str) -> None:
    async def names(client: Client) -> list[str]:
        return [tool.name for tool in (await client.list_tools()).tools]

    assert with_mcp(server, alice, names, mode=mode) == ["memory-search", "memory-write", "memory-delete", "run-agent"]


def test_a_memory_written_over_mcp_is_found_by_a_search_over_mcp(server: LocalServer, alice: str) -> None:
    async def write_then_search(client: Client) -> tuple[Any, Any]:
        written = await client.call_tool(
            "memory-write", {"namespace": "vector.user.${user_id}.memory", "content": "Alice's cat is called Miso."}
        )
        found = await client.call_tool("memory-search", {"query": "What is the name of Alice's cat?"})
        return written, found

    written, found = with_mcp(server, alice, write_then_search)
    assert written.is_error is False
    assert written.structured_content["namespace"] == "vector.user.alice.memory"
    hits = found.structured_content["hits"]
    assert hits and hits[0]["content"] == "Alice's cat is called Miso."


def test_another_users_namespace_is_refused_and_the_refusal_is_audited(server: LocalServer, alice: str) -> None:
    async def trespass(client: Client) -> tuple[Any, Any]:
        write = await client.call_tool("memory-write", {"namespace": "vector.user.bob.memory", "content": "planted"})
        search = await client.call_tool(
            "memory-search", {"query": "bob's plans", "namespaces": ["vector.user.bob.memory"]}
        )
        return write, search

    write, search = with_mcp(server, alice, trespass)
    assert write.is_error is True and write.content[0].text.startswith("forbidden: ")
    assert search.structured_content["hits"] == [] and search.structured_content["namespaces"] == []
    records = HttpClient(server, alice).call("GET", "/v1/audit?action=denied", expect=200)["records"]
    trespassed = [r for r in records if r["namespace"] == "vector.user.bob.memory"]
    assert len(trespassed) == 2
    assert {(r["user_id"], r["detail"]["via"]) for r in trespassed} == {("alice", "mcp")}


def test_run_agent_answers_the_agents_answer(server: LocalServer, alice: str) -> None:
    HttpClient(server, alice).call("PUT", "/v1/agents/echo", {"label": "Echo"}, expect=200)

    async def run_agent(client: Client) -> Any:
        return await client.call_tool("run-agent", {"agent_id": "echo", "input": "ping over MCP"})

    result = with_mcp(server, alice, run_agent)
    assert (result.is_error, result.content[0].text) == (False, "offline: ping over MCP")
    run = HttpClient(server, alice).call("GET", f"/v1/runs/{result.structured_content['run_id']}", expect=200)
    assert run["status"] == "succeeded"


def test_without_a_valid_token_mcp_is_refused_before_mneme_sees_it(server: LocalServer) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    assert server.request("POST", "/mcp", message, headers=headers).status == 401
    assert server.request("POST", "/mcp", message, token="not-a-token", headers=headers).status == 401
