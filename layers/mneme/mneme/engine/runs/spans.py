"""The spans of a run's step (issue 16, GenAI semantic conventions): ``invoke_agent {label}`` around the tool
loop and the run's preparation (memory auto-inject), ``execute_tool {tool}`` around each tool call. Model
calls get theirs in the model registry (``adapters.traced_model``), memory reads and writes in
``engine.memory_io.ops``. Every run span names the run, its tree and depth, so a delegation tree — whose steps
are separate invocations of the state machine — can be put together by ``mneme.root_run_id``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mneme import telemetry
from mneme.engine.runs.session import RunSession
from mneme.models.chat import ToolCallMessage, ToolResultMessage

T = TypeVar("T")


def run_attributes(session: RunSession, phase: str) -> dict[str, Any]:
    run, agent = session.run, session.config.agent
    return {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": agent.agent_id,
        "gen_ai.agent.name": agent.label,
        "gen_ai.conversation.id": run.chat_id,
        "gen_ai.request.model": agent.model.model_id,
        "mneme.phase": phase,
        "mneme.run_id": run.run_id,
        "mneme.root_run_id": run.root_run_id,
        "mneme.parent_run_id": run.parent_run_id,
        "mneme.depth": run.depth,
        "mneme.user_id": run.user_id,
    }


def in_run_span(phase: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Run the decorated ``f(session, ...)`` inside an ``invoke_agent`` span of the session's run."""

    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def wrapper(session: RunSession, *args: Any, **kwargs: Any) -> T:
            if not telemetry.enabled():
                return function(session, *args, **kwargs)
            label = session.config.agent.label
            with telemetry.span(f"invoke_agent {label}", run_attributes(session, phase)) as span:
                result = function(session, *args, **kwargs)
                usage = session.run.usage
                span.set_many(
                    {
                        "mneme.outcome": result if isinstance(result, str) else None,
                        "mneme.status": session.run.status.value,
                        "gen_ai.usage.input_tokens": usage.input_tokens,
                        "gen_ai.usage.output_tokens": usage.output_tokens,
                        "mneme.cost_usd": usage.cost_usd,
                        "mneme.tree_cost_usd": session.run.tree_usage.cost_usd,
                    }
                )
                return result

        return wrapper

    return decorate


def in_tool_span(
    session: RunSession, call: ToolCallMessage, tool_type: str, execute: Callable[[], ToolResultMessage]
) -> ToolResultMessage:
    """``execute()`` (one tool call) inside an ``execute_tool`` span."""
    if not telemetry.enabled():
        return execute()
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool,
        "gen_ai.tool.call.id": call.call_id,
        "gen_ai.tool.type": tool_type,
        "mneme.run_id": session.run.run_id,
        "gen_ai.tool.call.arguments": telemetry.content(call.arguments),
    }
    with telemetry.span(f"execute_tool {call.tool}", attributes) as span:
        result = execute()
        span.set_many(
            {"mneme.tool.status": result.status, "gen_ai.tool.call.result": telemetry.content(result.content)}
        )
        return result
