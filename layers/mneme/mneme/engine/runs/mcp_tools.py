"""Tools from the MCP servers an agent lists (issue 20).

* **Discovery** at run start (:func:`start_discovery` / :func:`finish_discovery`, the servers in parallel,
  beside the memory auto-inject): each server's tool list comes from the per-container catalog while fresh,
  else from the server. The tools are offered as ``<server>__<tool>`` — sorted by that name, with canonical
  schemas (:mod:`mneme.context.tools`), so the prompt prefix is byte-identical from run to run — and kept in
  the run's checkpoint, so every step of the run (after an approval too) offers and validates the same tools.
  A server that cannot be reached is a ``warning`` event and offers nothing in this run; the run goes on.
* **Calls** (:func:`call`): the arguments are validated against the tool's input schema before anything is
  sent; the result is cut to :data:`MCP_RESULT_MAX_CHARS`; a failure (invalid arguments, ``isError``, a
  server that is down or slow) is a tool error the model sees. The ``tool_call`` event of every call names
  the server, the tool and how long the call took.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import Future
from typing import Any
from urllib.parse import quote

from mneme.engine import parallel
from mneme.engine.deps import Deps
from mneme.engine.mcp_catalog import catalog_key
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.tool_args import check_schema, validate_arguments
from mneme.errors import MnemeError, SecretUnavailable, ToolError
from mneme.models.chat import ToolCallMessage
from mneme.models.mcp import McpServer, McpTool, offered_name
from mneme.ports.mcp import McpEndpoint, McpToolInfo, OAuthClientCredentials
from mneme.records import Record
from mneme.spec_limits import (
    MCP_MAX_DESCRIPTION_CHARS,
    MCP_MAX_SCHEMA_CHARS,
    MCP_MAX_TOOL_CHARS_PER_RUN,
    MCP_MAX_TOOLS_PER_SERVER,
    MCP_RESULT_MAX_CHARS,
    TOOL_NAME_PATTERN,
)

_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)
_HEADER_VALUE = re.compile(r"[\x20-\x7e]+")  # what a bearer token may hold: printable ASCII
_HEADER_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "%")


class _Discovery(Record):
    server: McpServer
    tools: Future[tuple[McpToolInfo, ...]]


def endpoint_for(deps: Deps, server: McpServer, *, owner: str, user_id: str) -> McpEndpoint:
    """The server's URL with its auth resolved (the secret read for the agent's owner) and, when configured,
    the caller's user id in the header the server trusts (percent-encoded outside printable ASCII)."""
    auth = server.auth
    headers: dict[str, str] = {}
    oauth = None
    if auth.type != "none":
        if deps.secrets is None or auth.secret is None:
            raise SecretUnavailable("no secret store is configured for MCP server credentials")
        secret = deps.secrets.get_secret(auth.secret, owner=owner).strip()
        if auth.type == "bearer":
            if not _HEADER_VALUE.fullmatch(secret):  # the HTTP client's error would quote the whole header
                raise SecretUnavailable(
                    f"secret {auth.secret!r} holds a character an HTTP header cannot carry (a line break, a "
                    "control or a non-ASCII character); store the bare token"
                )
            headers["Authorization"] = f"Bearer {secret}"
        else:
            assert auth.token_url is not None and auth.client_id is not None  # McpAuth validated it
            oauth = OAuthClientCredentials(auth.token_url, auth.client_id, secret, auth.scope)
    if server.forward_user_id_header:
        headers[server.forward_user_id_header] = quote(user_id, safe=_HEADER_SAFE)
    return McpEndpoint(server.url, headers, oauth, server.timeout_seconds)


def start_discovery(session: RunSession) -> list[_Discovery]:
    """Ask every MCP server of the agent for its tools (in parallel); :func:`finish_discovery` collects."""
    servers = session.config.agent.mcp_servers
    session.state.mcp_tools = []
    if not servers:
        return []
    if session.deps.mcp is None:
        names = ", ".join(server.name for server in servers)
        session.recorder.warning(f"MCP servers are not available in this deployment; not offered: {names}")
        return []
    owner, user_id = session.config.agent.owner or session.run.user_id, session.run.user_id
    return [_Discovery(s, parallel.submit(_list_tools, session.deps, s, owner, user_id)) for s in servers]


def finish_discovery(session: RunSession, pending: list[_Discovery]) -> None:
    offered: list[McpTool] = []
    for discovery in pending:
        server = discovery.server
        try:
            listed = discovery.tools.result()
        except MnemeError as exc:
            session.recorder.warning(
                f"MCP server {server.name!r} could not be reached; its tools are not offered in this run: "
                f"{exc.message}",
                server=server.name,
            )
            continue
        tools, problems = offerable(server.name, listed)
        for problem in problems:
            session.recorder.warning(problem, server=server.name)
        offered += tools
    session.state.mcp_tools = _within_budget(session, sorted(offered, key=lambda tool: tool.name))


def _within_budget(session: RunSession, tools: list[McpTool]) -> list[McpTool]:
    """The tools in name order while their specs fit :data:`MCP_MAX_TOOL_CHARS_PER_RUN` (prompt, checkpoint)."""
    kept: list[McpTool] = []
    used = 0
    for tool in tools:
        used += len(tool.name) + len(tool.description) + len(json.dumps(tool.input_schema, ensure_ascii=False))
        if used > MCP_MAX_TOOL_CHARS_PER_RUN:
            left = [t.name for t in tools[len(kept) :]]
            session.recorder.warning(
                f"the MCP tools of this agent are larger than {MCP_MAX_TOOL_CHARS_PER_RUN} characters together; "
                f"{len(left)} not offered: {', '.join(left[:10])}"
            )
            break
        kept.append(tool)
    return kept


def _list_tools(deps: Deps, server: McpServer, owner: str, user_id: str) -> tuple[McpToolInfo, ...]:
    assert deps.mcp is not None
    endpoint = endpoint_for(deps, server, owner=owner, user_id=user_id)
    key = catalog_key(endpoint)
    cached = deps.mcp_catalog.get(key, now=deps.monotonic())
    if cached is not None:
        return cached
    tools = tuple(deps.mcp.list_tools(endpoint))
    deps.mcp_catalog.put(key, tools, now=deps.monotonic(), ttl=deps.settings.mcp_tools_ttl_seconds)
    return tools


def offerable(server: str, listed: tuple[McpToolInfo, ...] | list[McpToolInfo]) -> tuple[list[McpTool], list[str]]:
    """The tools of one server that can be offered, and a warning for each kind of tool left out."""
    tools: list[McpTool] = []
    bad_names: list[str] = []
    bad_schemas: list[str] = []
    seen: set[str] = set()
    for info in sorted(listed, key=lambda item: item.name):
        name = offered_name(server, info.name)
        if not _TOOL_NAME.match(name) or name in seen:
            bad_names.append(info.name)
            continue
        schema = _usable_schema(info.input_schema)
        if schema is None:
            bad_schemas.append(info.name)
            continue
        seen.add(name)
        description = (info.description or "").strip() or f"The tool {info.name} of the MCP server {server}."
        tools.append(
            McpTool(name=name, server=server, tool=info.name, description=_cut(description), input_schema=schema)
        )
    problems: list[str] = []
    if bad_names:
        problems.append(
            f"MCP server {server!r}: tools not offered because '{server}__<name>' is not a valid tool name "
            f"(letters, digits, '_' and '-', at most 64) or repeats another: {', '.join(bad_names[:10])}"
        )
    if bad_schemas:
        problems.append(
            f"MCP server {server!r}: tools not offered because their input schema is not a usable object schema "
            f"(invalid, over {MCP_MAX_SCHEMA_CHARS} characters, or with a remote $ref): {', '.join(bad_schemas[:10])}"
        )
    if len(tools) > MCP_MAX_TOOLS_PER_SERVER:
        problems.append(
            f"MCP server {server!r} lists {len(tools)} tools; the first {MCP_MAX_TOOLS_PER_SERVER} by name are offered"
        )
        tools = tools[:MCP_MAX_TOOLS_PER_SERVER]
    return tools, problems


def _cut(description: str) -> str:
    return (
        description
        if len(description) <= MCP_MAX_DESCRIPTION_CHARS
        else description[: MCP_MAX_DESCRIPTION_CHARS - 1] + "…"
    )


def _usable_schema(schema: Any) -> dict[str, Any] | None:
    """An object schema that validates locally (no ``$ref`` outside the schema: a validator would fetch it)."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return None
    usable: dict[str, Any] = {"type": "object", **schema}
    text = json.dumps(usable, sort_keys=True, ensure_ascii=False)
    if len(text) > MCP_MAX_SCHEMA_CHARS:
        return None
    try:
        check_schema(usable)  # also refuses a remote $ref (tool_args never compiles one)
    except ToolError:
        return None
    return usable


def find(session: RunSession, name: str) -> McpTool | None:
    """The MCP tool of this run offered under ``name``."""
    return next((tool for tool in session.state.mcp_tools if tool.name == name), None)


def call(session: RunSession, tool: McpTool, call: ToolCallMessage, detail: dict[str, Any]) -> str:
    """Call ``tool`` with the call's arguments; fills ``detail`` (server, tool, duration) for the event."""
    detail.update(server=tool.server, mcp_tool=tool.tool)
    deps, agent = session.deps, session.config.agent
    server = next((s for s in agent.mcp_servers if s.name == tool.server), None)
    if server is None or deps.mcp is None:
        raise ToolError(f"{call.tool}: the MCP server {tool.server!r} is no longer available to this agent")
    arguments = validate_arguments(call.tool, tool.input_schema, call.arguments)
    started = deps.monotonic()
    try:
        endpoint = endpoint_for(deps, server, owner=agent.owner or session.run.user_id, user_id=session.run.user_id)
        result = deps.mcp.call_tool(endpoint, tool.tool, arguments)
    except MnemeError as exc:
        raise ToolError(f"{call.tool} failed: {exc.message}") from exc
    finally:
        detail["duration_ms"] = round((deps.monotonic() - started) * 1000, 1)
    text = capped(result.text)
    if result.is_error:
        raise ToolError(f"{call.tool} failed: {text}")
    return text


def capped(text: str, limit: int = MCP_RESULT_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[cut: the result has {len(text)} characters; the first {limit} are shown]"
