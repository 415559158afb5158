"""Every route of the API's OpenAPI document has a client method, in both clients: a route added to the API
without one fails here (add the call to ``mneme_client.calls``, the method to ``mneme_client.methods``, and the
route to ``COVERAGE``). Each method is called against a transport that records what it sends, so the map
cannot name a method that sends something else."""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from scripts import client_models

from mneme_client import AsyncClient, Client, calls

#: (method, path template) -> the client method that sends it
COVERAGE: dict[tuple[str, str], str] = {
    ("GET", "/v1/health"): "health",
    ("GET", "/v1/openapi.json"): "openapi",
    ("GET", "/v1/agents"): "list_agents",
    ("GET", "/v1/agents/{agent_id}"): "get_agent",
    ("PUT", "/v1/agents/{agent_id}"): "put_agent",
    ("DELETE", "/v1/agents/{agent_id}"): "delete_agent",
    ("GET", "/v1/agents/{agent_id}/revisions"): "agent_revisions",
    ("GET", "/v1/agents/{agent_id}/tasks"): "list_tasks",
    ("GET", "/v1/agents/{agent_id}/tasks/{task_id}"): "get_task",
    ("PUT", "/v1/agents/{agent_id}/tasks/{task_id}"): "put_task",
    ("DELETE", "/v1/agents/{agent_id}/tasks/{task_id}"): "delete_task",
    ("GET", "/v1/agents/{agent_id}/tasks/{task_id}/revisions"): "task_revisions",
    ("GET", "/v1/skills"): "list_skills",
    ("GET", "/v1/skills/{name}"): "get_skill",
    ("PUT", "/v1/skills/{name}"): "put_skill",
    ("DELETE", "/v1/skills/{name}"): "delete_skill",
    ("GET", "/v1/skills/{name}/revisions"): "skill_revisions",
    ("GET", "/v1/me/settings"): "get_settings",
    ("PUT", "/v1/me/settings"): "put_settings",
    ("GET", "/v1/runs"): "list_runs",
    ("POST", "/v1/runs"): "start_run",
    ("GET", "/v1/runs/{run_id}"): "get_run",
    ("GET", "/v1/runs/{run_id}/events"): "run_events",
    ("POST", "/v1/runs/{run_id}/cancel"): "cancel_run",
    ("POST", "/v1/runs/{run_id}/approvals"): "answer_approval",
    ("GET", "/v1/runs/{run_id}/context"): "run_context",
    ("GET", "/v1/runs/{run_id}/audit"): "run_audit",
    ("POST", "/v1/context/preview"): "preview_context",
    ("GET", "/v1/chats"): "list_chats",
    ("GET", "/v1/chats/{chat_id}"): "get_chat",
    ("DELETE", "/v1/chats/{chat_id}"): "delete_chat",
    ("POST", "/v1/memory/search"): "search_memory",
    ("POST", "/v1/memory/explain"): "explain_memory",
    ("GET", "/v1/memory/namespaces"): "memory_namespaces",
    ("GET", "/v1/memory/documents"): "list_documents",
    ("POST", "/v1/memory/documents"): "write_memory",
    ("POST", "/v1/memory/documents:batch"): "write_memory_batch",
    ("GET", "/v1/memory/documents/{doc_id}"): "get_document",
    ("PATCH", "/v1/memory/documents/{doc_id}"): "patch_document",
    ("DELETE", "/v1/memory/documents/{doc_id}"): "delete_document",
    ("GET", "/v1/memory/documents/{doc_id}/revisions"): "document_revisions",
    ("GET", "/v1/me/approvals"): "remembered_approvals",
    ("DELETE", "/v1/me/approvals/{approval_id}"): "revoke_approval",
    ("GET", "/v1/audit"): "audit_page",
    ("GET", "/v1/audit/verify"): "verify_audit",
    ("GET", "/v1/retention"): "retention",
    ("POST", "/v1/me/export"): "request_export",
    ("GET", "/v1/me/exports/{export_id}"): "get_export",
    ("DELETE", "/v1/me"): "erase_me",
    ("GET", "/v1/me/erasure"): "my_erasure",
    ("DELETE", "/v1/admin/users/{user_id}"): "erase_user",
    ("GET", "/v1/admin/users/{user_id}/erasure"): "user_erasure",
}
#: routes a client method would not serve, and why
NOT_COVERED = {("POST", "/mcp"): "the Model Context Protocol's endpoint, spoken by MCP clients, not this one"}
#: arguments for methods whose required ones are not ids
ARGUMENTS: dict[str, tuple[Any, ...]] = {
    "write_memory": ("vector.user.u.memory", "x"),
    "write_memory_batch": ([{"namespace": "vector.user.u.memory", "content": "x"}],),
}
#: query parameters a method leaves out on purpose: the pages of a list it answers whole, which it follows itself
FOLLOWED = {"limit", "cursor"}
WHOLE_LISTS = {"list_agents", "list_skills", "list_chats", "list_tasks"} | {
    f"{kind}_revisions" for kind in ("agent", "task", "skill")
}
VERBS = {"get", "put", "post", "patch", "delete"}


@pytest.fixture(scope="module")
def paths() -> dict[str, dict[str, Any]]:
    return client_models.openapi_document()["paths"]  # type: ignore[return-value]


@pytest.fixture(scope="module")
def routes(paths: dict[str, dict[str, Any]]) -> set[tuple[str, str]]:
    return {(verb.upper(), path) for path, operations in paths.items() for verb in operations if verb in VERBS}


def test_every_route_of_the_api_has_a_client_method(routes: set[tuple[str, str]]) -> None:
    missing = routes - COVERAGE.keys() - NOT_COVERED.keys()
    assert not missing, f"routes without a client method: {sorted(missing)}"
    assert not (COVERAGE.keys() | NOT_COVERED.keys()) - routes, "the map names routes the API no longer has"


def test_a_route_missing_from_the_map_is_reported(routes: set[tuple[str, str]]) -> None:
    assert routes - (COVERAGE.keys() - {("GET", "/v1/retention")}) - NOT_COVERED.keys() == {("GET", "/v1/retention")}


@pytest.mark.parametrize("name", sorted(set(COVERAGE.values())))
def test_both_clients_have_the_method(name: str) -> None:
    sync, awaited = getattr(Client, name, None), getattr(AsyncClient, name, None)
    assert callable(sync), f"Client.{name}"
    assert inspect.iscoroutinefunction(awaited) or inspect.isasyncgenfunction(awaited), f"AsyncClient.{name}"


def _arguments(name: str) -> tuple[Any, ...]:
    if name in ARGUMENTS:
        return ARGUMENTS[name]
    required = [
        p
        for p in inspect.signature(getattr(Client, name)).parameters.values()
        if p.name != "self" and p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    return tuple({} if "dict" in str(p.annotation) else f"id-{p.name.replace('_', '-')}" for p in required)


def _recorder(sent: list[httpx.Request]) -> httpx.MockTransport:
    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(599, json={"error": {"code": "recorded", "message": "recorded"}})

    return httpx.MockTransport(record)


def _sent(name: str) -> tuple[str, str]:
    sent: list[httpx.Request] = []
    with Client("http://mneme.test", "t", retries=0, transport=_recorder(sent)) as client:
        try:
            answer = getattr(client, name)(*_arguments(name))
            if isinstance(answer, Iterator):
                next(answer)
        except Exception:  # the recorded request is what counts; its answer is not one the method reads
            pass
    assert sent, f"Client.{name} sent nothing"
    return sent[0].method, sent[0].url.path


def _sent_async(name: str) -> tuple[str, str]:
    sent: list[httpx.Request] = []

    async def scenario() -> None:
        async with AsyncClient("http://mneme.test", "t", retries=0, transport=_recorder(sent)) as client:
            try:
                answer = getattr(client, name)(*_arguments(name))
                if isinstance(answer, AsyncIterator):
                    await anext(answer)
                else:
                    await answer
            except Exception:  # as above: what was sent counts
                pass

    asyncio.run(scenario())
    assert sent, f"AsyncClient.{name} sent nothing"
    return sent[0].method, sent[0].url.path


@pytest.mark.parametrize(("route", "name"), sorted(COVERAGE.items()))
def test_each_method_sends_its_route(route: tuple[str, str], name: str) -> None:
    verb, template = route
    pattern = re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template))
    for client, (method, path) in (("Client", _sent(name)), ("AsyncClient", _sent_async(name))):
        assert method == verb and re.fullmatch(pattern, path), f"{client}.{name} sent {method} {path}, not {route}"


def _parameters(name: str) -> set[str]:
    """The method's keyword parameters, or, for one that passes ``**options`` on, its call's."""
    signature = inspect.signature(getattr(Client, name))
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        signature = inspect.signature(getattr(calls, name))
    return set(signature.parameters)


def test_each_query_parameter_of_a_route_is_one_of_its_methods(paths: dict[str, dict[str, Any]]) -> None:
    missing = {
        (verb, path, name, parameter["name"])
        for (verb, path), name in COVERAGE.items()
        for parameter in paths[path][verb.lower()].get("parameters", [])
        if parameter["in"] == "query"
        and parameter["name"] not in _parameters(name)
        and not (name in WHOLE_LISTS and parameter["name"] in FOLLOWED)
    }
    assert not missing, f"query parameters no client method takes: {sorted(missing)}"
