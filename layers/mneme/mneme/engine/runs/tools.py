"""Ordinary tool calls: the memory tools, activate_skill, external Lambda tools (SPEC §4, §5.4, §8) and the
tools of the agent's MCP servers (:mod:`mneme.engine.runs.mcp_tools`).

Every failure becomes a tool error the model sees; denials are audited.
"""

from __future__ import annotations

import json
from typing import Any

from mneme.context.suffix import stored_on
from mneme.context.tools import ACTIVATE_SKILL, INTERNAL_TOOL_SPECS
from mneme.engine.audit import DENIAL_SAMPLE
from mneme.engine.memory_io import audited_writes
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.runs import mcp_tools
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.spans import in_tool_span
from mneme.engine.runs.tool_args import validate_arguments
from mneme.errors import AuditWriteFailed, InvalidInput, MnemeError, PayloadTooLarge, ToolError
from mneme.memory.access import Denial, MemoryToolDenied, denials_of, tool_search_access, tool_write_access
from mneme.memory.lifecycle import check_user_metadata
from mneme.models.chat import ToolCallMessage, ToolResultMessage
from mneme.models.memory import MemoryHit
from mneme.records import replace
from mneme.skills import activate_skill, skill_name_argument
from mneme.spec_limits import MAX_NAMESPACE_CHARS


def execute(session: RunSession, call: ToolCallMessage) -> ToolResultMessage:
    """Run one tool call and return its result message (never raises for tool-level failures)."""
    external = any(tool.name == call.tool for tool in session.config.agent.external_tools)
    tool_type = "extension" if external else "datastore" if call.tool.startswith("memory-") else "function"
    return in_tool_span(session, call, tool_type, lambda: _execute(session, call))


def _execute(session: RunSession, call: ToolCallMessage) -> ToolResultMessage:
    detail: dict[str, Any] = {}  # what the event adds for this kind of tool (an MCP call's server and duration)
    try:
        content = _dispatch(session, call, detail)
        status = "success"
    except MemoryToolDenied as exc:
        _audit_denial(session, exc)
        content, status = f"Error: {exc.message}", "error"
    except MnemeError as exc:  # memory down, not found, invalid arguments, a failing tool: the model is told
        content, status = f"Error: {exc.message}", "error"
    session.recorder.event(
        "tool_call",
        call_id=call.call_id,
        tool=call.tool,
        status=status,
        **detail,
        **({"error": content} if status == "error" else {}),
    )
    return ToolResultMessage(
        call_id=call.call_id, tool=call.tool, content=content, status=status, run_id=session.run.run_id
    )


def _audit_refused_search(session: RunSession, call: ToolCallMessage) -> None:
    """A search refused for its arguments still tried the namespaces it named: one bounded ``denied``
    record says so (however many it named)."""
    named = call.arguments.get("namespaces") if call.tool == "memory-search" else None
    if not isinstance(named, list) or not named:
        return
    denied = [Denial(str(item)[:MAX_NAMESPACE_CHARS], "invalid_arguments") for item in named[:DENIAL_SAMPLE]]
    try:
        session.recorder.audit_denials(denied, via="tool", count=len(named))
    except AuditWriteFailed:
        session.recorder.warning("an audit record of a refused search could not be written")


def _audit_denial(session: RunSession, exc: MemoryToolDenied) -> None:
    try:
        session.recorder.audit("denied", [exc.denial.namespace], via="tool", reason=exc.denial.reason)
    except AuditWriteFailed:
        session.recorder.warning("an audit record of a denied namespace could not be written")


def _dispatch(session: RunSession, call: ToolCallMessage, detail: dict[str, Any]) -> str:
    external = {tool.name: tool for tool in session.config.agent.external_tools}
    if call.tool in external:
        tool = external[call.tool]
        args = validate_arguments(call.tool, tool.input_schema, call.arguments)
        return _external(session, tool.function_arn, call, args)
    mcp_tool = mcp_tools.find(session, call.tool)
    if mcp_tool is not None:
        return mcp_tools.call(session, mcp_tool, call, detail)
    definition = INTERNAL_TOOL_SPECS.get(call.tool)
    if definition is None:
        raise ToolError(f"unknown tool {call.tool!r}")
    try:
        args = validate_arguments(call.tool, definition.input_schema, call.arguments)
    except ToolError:
        _audit_refused_search(session, call)
        raise
    if call.tool == ACTIVATE_SKILL:
        return activate_skill(skill_name_argument(args), session.config.skills)
    handlers = {
        "memory-search": _memory_search,
        "memory-write": _memory_write,
        "memory-update": _memory_update,
        "memory-delete": _memory_delete,
    }
    if call.tool not in handlers:
        raise ToolError(f"tool {call.tool!r} cannot be called here")
    return handlers[call.tool](session, args)


def _external(session: RunSession, function_arn: str, call: ToolCallMessage, args: dict[str, Any]) -> str:
    run = session.run
    payload = {
        "tool": call.tool,
        "arguments": args,
        "call_id": call.call_id,
        "user_id": run.user_id,
        "run_id": run.run_id,
        "root_run_id": run.root_run_id,
        "agent_id": run.agent_id,
        "chat_id": run.chat_id,
        "project_id": run.project_id,
        "session_id": run.session_id,
        "depth": run.depth,
    }
    timeout = session.time_budget.tool_timeout() if session.time_budget is not None else None
    try:
        result = session.deps.tools.invoke(function_arn, payload, timeout_seconds=timeout)
    except MnemeError as exc:
        raise ToolError(f"{call.tool} failed: {exc.message}") from exc
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)


def _memory_search(session: RunSession, args: dict[str, Any]) -> str:
    try:
        access = tool_search_access(session.state.policy, session.scope, args.get("namespaces") or None)
    except ToolError as exc:
        memory_ops.audit_denials(session.memory, session.records, denials_of(exc), via="tool")
        raise
    for warning in access.warnings:  # a tool_read_namespaces pattern this run cannot resolve (SPEC §5.2)
        session.recorder.warning(warning)
    top_k = int(args.get("top_k") or session.state.policy.top_k)
    ranking = replace(memory_ops.Ranking.of(session.state.policy, top_k), lines=True)
    query = "" if access.empty else args["query"]
    ranked = memory_ops.search_explained(session.memory, session.records, access, query, ranking, via="tool")
    session.recorder.event(
        "memory_hits", via="tool", **memory_ops.hits_event(ranked, access, ranking, session.memory.model_id)
    )
    if access.empty:
        return access.message or "No authorized namespace was found."
    hits = ranked.hits
    if not hits:
        return "No matching memory entries."
    timezone = session.config.settings.timezone  # the day auto-inject's "Stored on" gives the same entry
    return json.dumps(
        [
            {
                "id": h.id,
                "namespace": h.namespace,
                "content": h.content,
                "stored_on": stored_on(h, timezone),
                "relevance": round(h.relevance, 4),
                **_lines(h),
            }
            for h in hits
        ],
        ensure_ascii=False,
    )


def _lines(hit: MemoryHit) -> dict[str, list[str]]:
    """The lines said just before and after a chat-line hit (:mod:`mneme.memory.conversation`), when shown, each
    side in the order they were said."""
    said: dict[str, list[str]] = {}
    for line in hit.context:  # in the order they were said
        said.setdefault("said_before" if line.offset < 0 else "said_after", []).append(line.content)
    return said


def _memory_write(session: RunSession, args: dict[str, Any]) -> str:
    target = tool_write_access(session.state.policy, session.scope, "write", args.get("namespace"))
    try:
        extra = check_user_metadata(args.get("metadata"))
    except InvalidInput as exc:
        raise ToolError(exc.message, field="metadata") from exc
    run = session.run
    owner = "" if target.startswith("vector.global.") else run.user_id
    document = memory_ops.new_document(
        session.deps.ids(),
        target,
        owner,
        args["content"],
        clock=session.deps.clock,
        tags=args.get("tags") or (),
        metadata={
            **extra,
            "source": "tool",
            "agent_id": run.agent_id,
            "task_id": run.task_id,
            "chat_id": run.chat_id,
            "user_id": run.user_id,
            "session_id": run.session_id,
            "run_id": run.run_id,
        },
        ttl_seconds=int(args["ttl_seconds"]) if args.get("ttl_seconds") is not None else None,
        retention=session.memory.retention,
        authority="agent_initiated",
    )
    try:
        documents = memory_ops.chunked(document, audited_writes.chunk_limit(session.memory))
    except PayloadTooLarge as exc:
        raise ToolError(exc.message, field="content") from exc
    ids = audited_writes.audited_create(session.memory, session.records, target, documents, via="tool")
    return json.dumps({"id": ids[0], "namespace": target})


def _memory_update(session: RunSession, args: dict[str, Any]) -> str:
    target = tool_write_access(session.state.policy, session.scope, "update", args["namespace"])
    ports = session.memory
    audited_writes.require_document(ports, args["id"], target)
    content = args.get("content")
    vector = ports.embed_content(content) if content else None
    store, _ = ports.require()
    audited_writes.audited_write(
        ports,
        session.records,
        "update",
        target,
        lambda: store.update(
            args["id"],
            target,
            content=content,
            tags=args.get("tags"),
            vector=vector,
            now=session.deps.clock.now(),
        ),
        via="tool",
        id=args["id"],
    )
    return json.dumps({"id": args["id"], "namespace": target, "updated": True})


def _memory_delete(session: RunSession, args: dict[str, Any]) -> str:
    target = tool_write_access(session.state.policy, session.scope, "delete", args["namespace"])
    ports = session.memory
    document = audited_writes.require_document(ports, args["id"], target)
    trail = session.recorder.trail()
    ids = audited_writes.audited_delete(ports, trail, session.run.user_id, document, via="tool", id=args["id"])
    return json.dumps({"deleted": ids})
