"""The pure parts of MCP support (issue 20): server configuration, where a URL may point, the tool-list cache,
what the model sees of a result."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import CallToolResult, EmbeddedResource, ImageContent, ResourceLink, TextContent, TextResourceContents
from pydantic import ValidationError

from mneme.adapters.mcp.client import result_text
from mneme.engine.mcp_catalog import MAX_ENTRIES, McpCatalog, catalog_key
from mneme.engine.runs.mcp_tools import capped, offerable
from mneme.models.agent import Agent
from mneme.models.mcp import McpServer, destination_problem
from mneme.ports.mcp import McpEndpoint, McpToolInfo, OAuthClientCredentials


def _agent(**fields: Any) -> Agent:
    return Agent(agent_id="a", label="A", **fields)


def test_an_agent_without_servers_is_valid_and_one_with_two_of_a_name_is_not() -> None:
    assert _agent().mcp_servers == []
    server = {"name": "s", "url": "https://s.example/mcp"}
    with pytest.raises(ValidationError, match="unique"):
        _agent(mcp_servers=[server, server])


def test_an_external_tool_may_use_double_underscores_outside_every_servers_namespace() -> None:
    tool = {"name": "other__x", "description": "d", "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:f"}
    agent = _agent(external_tools=[tool], mcp_servers=[{"name": "s", "url": "https://s.example/mcp"}])
    assert agent.external_tools[0].name == "other__x"
    with pytest.raises(ValidationError, match="namespace of MCP server 's'"):
        _agent(external_tools=[{**tool, "name": "s__x"}], mcp_servers=[{"name": "s", "url": "https://s.example/mcp"}])


def test_a_forwarded_user_id_header_may_not_be_one_mneme_sets() -> None:
    for header in ("authorization", "Host", "MCP-Protocol-Version"):
        with pytest.raises(ValidationError):
            McpServer(name="s", url="https://s.example/mcp", forward_user_id_header=header)
    assert McpServer(name="s", url="https://s.example/mcp", forward_user_id_header="X-User").forward_user_id_header


@pytest.mark.parametrize(
    "url",
    [
        "http://tools.example/mcp",
        "https://localhost/mcp",
        "https://api.localhost/mcp",
        "https://127.0.0.1/mcp",
        "https://169.254.169.254/latest",
        "https://10.0.0.8/mcp",
        "https://[::1]/mcp",
        "https://[fd00::1]/mcp",
    ],
)
def test_where_only_public_https_may_be_called_these_are_refused(url: str) -> None:
    assert destination_problem(url, allow_private=False) is not None
    assert destination_problem(url, allow_private=True) is None


@pytest.mark.parametrize("url", ["https://tools.example/mcp", "https://8.8.8.8/mcp", "https://[2606:4700::1111]/mcp"])
def test_public_https_urls_are_allowed(url: str) -> None:
    assert destination_problem(url, allow_private=False) is None


def test_the_catalog_serves_an_entry_until_its_ttl_and_not_after() -> None:
    catalog = McpCatalog()
    tools = [McpToolInfo("t", "d", {"type": "object"})]
    catalog.put("k", tools, now=10.0, ttl=60.0)
    assert (catalog.get("k", now=69.9), catalog.get("k", now=70.0)) == (tuple(tools), None)


def test_a_zero_ttl_caches_nothing() -> None:
    catalog = McpCatalog()
    catalog.put("k", [], now=0.0, ttl=0.0)
    assert catalog.get("k", now=0.0) is None


def test_the_catalog_stays_bounded() -> None:
    catalog = McpCatalog()
    for n in range(MAX_ENTRIES + 10):
        catalog.put(f"k{n}", [], now=0.0, ttl=60.0)
    assert len(catalog._entries) == MAX_ENTRIES
    assert catalog.get(f"k{MAX_ENTRIES + 9}", now=1.0) == ()


def test_the_catalog_key_changes_with_everything_that_decides_the_answer() -> None:
    base = McpEndpoint("https://s.example/mcp", {"Authorization": "Bearer a"})
    oauth = OAuthClientCredentials("https://auth.example/token", "c", "secret")
    variants = [
        base,
        McpEndpoint("https://t.example/mcp", {"Authorization": "Bearer a"}),
        McpEndpoint("https://s.example/mcp", {"Authorization": "Bearer b"}),
        McpEndpoint("https://s.example/mcp", {"Authorization": "Bearer a", "X-User": "alice"}),
        McpEndpoint("https://s.example/mcp", {}, oauth),
        McpEndpoint("https://s.example/mcp", {}, OAuthClientCredentials("https://auth.example/token", "c", "rotated")),
    ]
    assert len({catalog_key(v) for v in variants}) == len(variants)
    assert catalog_key(base) == catalog_key(McpEndpoint("https://s.example/mcp", {"Authorization": "Bearer a"}))


def test_the_key_never_holds_the_secret_in_clear() -> None:
    key = catalog_key(McpEndpoint("https://s.example/mcp", {"Authorization": "Bearer very-secret"}))
    assert "very-secret" not in key


def test_a_result_within_the_cap_is_unchanged_and_a_longer_one_is_cut_with_a_note() -> None:
    assert capped("abc", limit=3) == "abc"
    assert capped("abcd", limit=3) == "abc\n[cut: the result has 4 characters; the first 3 are shown]"


def test_offerable_names_tools_by_server_and_sorts_them() -> None:
    tools, problems = offerable("s", [McpToolInfo("b", "B", {"type": "object"}), McpToolInfo("a", "A", {})])
    assert [(t.name, t.tool, t.input_schema) for t in tools] == [
        ("s__a", "a", {"type": "object"}),
        ("s__b", "b", {"type": "object"}),
    ]
    assert problems == []


def test_a_result_is_its_text_blocks_with_other_content_named() -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="first"),
            ImageContent(type="image", data="aGVsbG8=", mime_type="image/png"),
            ResourceLink(type="resource_link", name="report", uri="https://files.example/r.pdf"),
            EmbeddedResource(
                type="resource", resource=TextResourceContents(uri="file:///notes.txt", text="embedded notes")
            ),
        ]
    )
    assert result_text(result).split("\n") == [
        "first",
        "[image image/png: 8 base64 characters, not shown]",
        "[resource report: https://files.example/r.pdf]",
        "embedded notes",
    ]


def test_a_result_without_text_is_its_structured_content() -> None:
    result = CallToolResult(content=[], structured_content={"b": 2, "a": 1})
    assert result_text(result) == '{"a": 1, "b": 2}'
