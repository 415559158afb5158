"""The context assembler: one pure function from everything a model call needs to the exact Bedrock
Converse request (SPEC §3). No I/O, no clock: the caller passes ``now``.

Prompt-caching invariant: everything before the current user message (``toolConfig``, ``system`` and the
history turns) depends only on configuration and stored history — never on the time, the memory hits or
per-request ids — and is serialized deterministically, so consecutive requests of one chat share a
byte-identical prefix. For the second and later model calls of one run, pass the run's own tool turns as
``continuation`` and the same ``now`` and hits as for the first call, so that the current message stays
identical too.

Tools and history: ``toolConfig`` is sent whenever tools are offered or the packed history holds tool
blocks (Bedrock rejects ``toolUse`` / ``toolResult`` blocks without it). A tool the history used but
that is not offered now (e.g. the parent's tools seen by a sub-agent) gets a stand-in spec that tells the
model not to call it; :attr:`AssembledContext.offered_tools` lists what may really be called.

Shape: ``modelId``, ``system`` (omitted when there is no system block at all), ``messages``,
``toolConfig`` (as above), ``inferenceConfig`` (only the settings that are set),
``additionalModelRequestFields`` (``{"thinking": {"type": "enabled", "budget_tokens": N}}`` when the agent
enables ``inference.reasoning``) and ``guardrailConfig`` (when the agent names a guardrail) — the same for
every provider; adapters for other providers translate it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mneme.context.caching import cache_capabilities, cache_point, count_cache_points
from mneme.context.dates import clock_time, long_date
from mneme.context.fork import ForkPrefix, after_prefix, instructions
from mneme.context.packing import Packed, pack
from mneme.context.suffix import memory_block, volatile_suffix, with_suffix
from mneme.context.system import SystemBlocks, system_blocks
from mneme.context.tools import build_tool_specs, spec_name, unavailable_tool_spec
from mneme.context.variables import resolve_task_context, task_context_warnings, template_values
from mneme.models import ChatMessage, ExternalTool, MemoryHit, ModelSpec, Skill, UserSettings
from mneme.models.mcp import McpTool
from mneme.records import Record, field
from mneme.spec_limits import MAX_CACHE_POINTS

if TYPE_CHECKING:
    from mneme.context.caching import CacheCapabilities
    from mneme.models.agent import InferenceSettings


class ContextInput(Record, kw_only=True):
    """Everything one model request is built from."""

    model: ModelSpec  # provider, model_id, inference settings
    now: datetime  # the request time (UTC); the run's start time for every call of one run
    user_text: str  # the current user message (for a sub-agent: the delegation input), raw
    user_id: str = ""
    user_settings: UserSettings = field(default_factory=UserSettings)
    chat_id: str | None = None
    project_id: str | None = None
    task_context: str = ""  # the selected task's context_prompt, unresolved
    depth: int = 0  # 0 = master; > 0 = sub-agent
    agent_label: str = ""
    skills: Sequence[Skill] = ()
    reattached_skill_blocks: Sequence[str] = ()  # from the rolling summary, already capped
    enabled_tools: Sequence[str] = ()  # internal tool names allowed by agent + policy
    external_tools: Sequence[ExternalTool | McpTool] = ()  # Lambda tools, then the MCP tools of the run
    allow_delegation: bool = False  # delegates listed and depth below the limit
    history: Sequence[ChatMessage] = ()  # stored messages, oldest first (after the rolling summary)
    continuation: Sequence[ChatMessage] = ()  # this run's tool turns after the current message
    memory_hits: Sequence[MemoryHit] = ()  # auto-inject hits, in ranking order
    memory_instructions: Sequence[str] = ()  # optional namespace-rule instructions for the hits
    fork: ForkPrefix | None = None  # a forked sub-agent: the parent's prefix comes first (context/fork.py)


class AssembledContext(Record):
    request: dict[str, Any]  # the Bedrock Converse request body
    warnings: list[str]
    block_sizes: dict[str, int]  # characters per part, for the context_built event
    cache_points: int
    offered_tools: tuple[str, ...]  # the tools the model may call in this request
    user_message: str  # the current user message as sent (text + volatile suffix)


def assemble(ctx: ContextInput) -> AssembledContext:
    settings = ctx.user_settings
    date_text = long_date(ctx.now, settings.language, settings.timezone)
    time_text = clock_time(ctx.now, settings.timezone)
    suffix = volatile_suffix(
        ctx.memory_hits,
        date_text=date_text,
        time_text=time_text,
        timezone=settings.timezone,
        instructions=ctx.memory_instructions,
    )
    offered = build_tool_specs(
        ctx.enabled_tools,
        ctx.external_tools,
        has_skills=bool(ctx.skills),
        allow_delegation=ctx.allow_delegation,
    )
    offered_names = tuple(spec_name(spec) for spec in offered)
    resolved = resolve_task_context(
        ctx.task_context,
        lambda: template_values(
            user_id=ctx.user_id,
            settings=settings,
            chat_id=ctx.chat_id,
            project_id=ctx.project_id,
            now=ctx.now,
        ),
    )
    blocks = system_blocks(
        resolved,
        depth=ctx.depth,
        label=ctx.agent_label,
        skills=ctx.skills,
        reattached_skills=ctx.reattached_skill_blocks,
        tools_offered=bool(offered),
    )
    fork, fork_end = ctx.fork, None
    user_text = instructions(blocks.texts(), ctx.user_text) if fork is not None else ctx.user_text
    user_message = with_suffix(user_text, suffix)
    packed = pack(ctx.history, user_message, ctx.continuation)
    if fork is None:
        tools = _with_history_tools(offered, packed.tool_names)
        system: list[dict[str, Any]] = [{"text": text} for text in blocks.texts()]
    else:  # the parent's tools and system blocks as sent; the child may call its own tools among them
        packed, fork_end = after_prefix(fork, packed)
        tools = _with_history_tools(copy.deepcopy(fork.tools), packed.tool_names, keep_order=True)
        system = copy.deepcopy(fork.system)
        prefix_names = {spec_name(spec) for spec in fork.tools}
        offered_names = tuple(name for name in offered_names if name in prefix_names)
    caps = cache_capabilities(ctx.model.provider, ctx.model.model_id)

    request: dict[str, Any] = {"modelId": ctx.model.model_id}
    if system:
        request["system"] = system
    request["messages"] = packed.messages
    if tools:
        request["toolConfig"] = {"tools": tools}
    inference = _inference_config(ctx.model.inference)
    if inference:
        request["inferenceConfig"] = inference
    if ctx.model.inference.reasoning is not None:
        budget = ctx.model.inference.reasoning.budget_tokens
        request["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": budget}}
    if ctx.model.guardrail is not None:
        guardrail = ctx.model.guardrail
        request["guardrailConfig"] = {
            "guardrailIdentifier": guardrail.id,
            "guardrailVersion": guardrail.version,
            "trace": guardrail.trace,
        }
    memory = memory_block(ctx.memory_hits, timezone=settings.timezone, instructions=ctx.memory_instructions)
    sizes = _block_sizes(blocks, tools, packed, user_message=user_message, memory=memory)
    _place_cache_points(request, packed, caps, fork_end)  # last: it shifts blocks after the insertion point

    return AssembledContext(
        request=request,
        warnings=task_context_warnings(ctx.task_context),
        block_sizes=sizes,
        cache_points=count_cache_points(request),
        offered_tools=offered_names,
        user_message=user_message,
    )


def _with_history_tools(
    offered: list[dict[str, Any]], used: Sequence[str], *, keep_order: bool = False
) -> list[dict[str, Any]]:
    """The offered specs plus a stand-in for each tool the history used that is not offered, by name (all
    sorted; with ``keep_order``, a fork's prefix, the given specs first as they are, stand-ins after)."""
    specs = {spec_name(spec): spec for spec in offered}
    for name in used:
        specs.setdefault(name, unavailable_tool_spec(name))
    if keep_order:
        return [*offered, *(specs[name] for name in sorted(specs.keys() - {spec_name(s) for s in offered}))]
    return [specs[name] for name in sorted(specs)]


def _inference_config(settings: InferenceSettings) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if settings.max_tokens is not None:
        config["maxTokens"] = settings.max_tokens
    if settings.temperature is not None:
        config["temperature"] = settings.temperature
    if settings.top_p is not None:
        config["topP"] = settings.top_p
    if settings.stop_sequences:
        config["stopSequences"] = list(settings.stop_sequences)
    return config


def _place_cache_points(
    request: dict[str, Any], packed: Packed, caps: CacheCapabilities, fork_end: tuple[int, int] | None = None
) -> None:
    """Cache points after the tools (if the model caches tools), after the system blocks, after the last
    history block (right before the current user text) and, within a run, after the run's last tool
    turn. A fork (issue 35.4) keeps a point where its parent's prefix ends (``fork_end``, the parent's own
    last point) and then its last one. Each is an extra block: no existing block changes. Never more
    than MAX_CACHE_POINTS."""
    budget = MAX_CACHE_POINTS
    if caps.tools and "toolConfig" in request and budget:
        request["toolConfig"]["tools"].append(cache_point())
        budget -= 1
    if caps.system and "system" in request and budget:
        request["system"].append(cache_point())
        budget -= 1
    if not caps.messages:
        return
    messages = request["messages"]
    last_turn = messages[-1]["content"]
    has_tail = packed.current_turn < len(messages) - 1 or packed.current_block < len(last_turn) - 1
    before_current: tuple[int, int] | None = (packed.current_turn, packed.current_block)
    if packed.current_block == 0:
        turn = packed.current_turn - 1
        before_current = (turn, len(messages[turn]["content"])) if turn >= 0 else None
    tail = (len(messages) - 1, len(last_turn)) if has_tail else None
    # a fork keeps its parent's point; then its own last one (the tail, else before the current text)
    wanted = [fork_end, tail or before_current] if fork_end is not None else [before_current, tail]
    points = [point for i, point in enumerate(wanted) if point is not None and point not in wanted[:i]]
    for turn, block in sorted(points[:budget], reverse=True):  # from the back: no insertion shifts another
        messages[turn]["content"].insert(block, cache_point())


def _size(value: Any) -> int:
    """Characters of a block: its text, or its JSON (tool blocks, specs)."""
    if isinstance(value, dict) and isinstance(value.get("text"), str) and len(value) == 1:
        return len(value["text"])
    return len(json.dumps(value, ensure_ascii=False))


def _block_sizes(
    blocks: SystemBlocks,
    tools: list[dict[str, Any]],
    packed: Packed,
    *,
    user_message: str,
    memory: str,
) -> dict[str, int]:
    """Characters per part (JSON characters for tools and history)."""
    history = sum(
        _size(block)
        for turn_index, message in enumerate(packed.messages)
        for block_index, block in enumerate(message["content"])
        if (turn_index, block_index) != (packed.current_turn, packed.current_block)
    )
    return {
        "task_context": len(blocks.task_context),
        "skill_catalog": len(blocks.skill_catalog),
        "reattached_skills": sum(len(block) for block in blocks.reattached_skills),
        "tool_notice": len(blocks.tool_notice),
        "tools": sum(_size(spec) for spec in tools),
        "history": history,
        "memory": len(memory),
        "user_message": len(user_message),
    }
