"""The tool loop of one run (SPEC §3–§8): model call → tool calls → model call … → final answer.

It stops early with an outcome when the run must wait: ``delegate`` (children to run in the state machine),
``await_approval`` (a person decides), or ``continue`` (the fast path's time budget is spent).
"""

from __future__ import annotations

import json

from mneme.context.assembler import ContextInput, assemble
from mneme.context.tools import ACTIVATE_SKILL, DELEGATE_TO_AGENT, INTERNAL_TOOL_SPECS
from mneme.delegation_rules import can_offer_delegation
from mneme.engine.runs import budget, live
from mneme.engine.runs import child_runs as delegate
from mneme.engine.runs import outcome as finish
from mneme.engine.runs import remembered as approvals_remembered
from mneme.engine.runs import tools as tool_exec
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.spans import in_run_span
from mneme.engine.runs.state import Outcome, PendingCall
from mneme.engine.runs.tool_args import validate_arguments
from mneme.engine.runs.usage import charge
from mneme.errors import RunAborted, ToolError
from mneme.json_depth import too_deep_message, value_depth_exceeds
from mneme.memory.ranking import rule_instructions
from mneme.models.chat import ChatMessage, ReasoningMessage, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.models.run import RunStatus
from mneme.ports.models import ModelResponse
from mneme.spec_limits import MAX_IDENTICAL_TOOL_CALLS, MAX_TOOL_CALLS_PER_RUN

#: the Converse stop reason of a guardrail that blocked the input or the output (issue 16)
GUARDRAIL_INTERVENED = "guardrail_intervened"


def context_input(session: RunSession) -> ContextInput:
    state, config, run = session.state, session.config, session.run
    agent = config.agent
    return ContextInput(
        model=agent.model,
        now=state.started_at or session.deps.clock.now(),
        user_text=state.user_text,
        user_id=run.user_id,
        user_settings=config.settings,
        chat_id=run.chat_id,
        project_id=run.project_id,
        task_context=config.task.context_prompt if config.task else "",
        depth=run.depth,
        agent_label=agent.label,
        skills=list(config.skills.values()),
        reattached_skill_blocks=state.reattached_skills,
        enabled_tools=enabled_tools(session),
        external_tools=[*agent.external_tools, *state.mcp_tools],
        allow_delegation=can_offer_delegation(agent, run.depth),
        history=state.history,
        continuation=state.turns,
        memory_hits=state.hits,
        memory_instructions=rule_instructions(state.hits, session.memory.rules),
        fork=state.fork,
    )


def enabled_tools(session: RunSession) -> list[str]:
    """The agent's internal tools the policy allows (memory writes only when the policy enables them)."""
    policy = session.state.policy
    gates = {
        "memory-search": True,
        "memory-write": policy.allow_tool_write,
        "memory-update": policy.allow_tool_write,
        "memory-delete": policy.allow_tool_delete,
        DELEGATE_TO_AGENT: True,
    }
    return [tool for tool in session.config.agent.tools if gates.get(tool, False)]


@in_run_span("loop")
def advance(session: RunSession) -> Outcome:
    """Run the loop until the run is done or must wait."""
    run = session.run
    run.status = RunStatus.RUNNING
    while True:
        outcome = _resolve_pending(session)
        if outcome is not None:
            return outcome
        exceeded = budget.exceeded(session)
        if exceeded is not None:
            finish.fail(session, f"budget_exceeded: {exceeded.message}", code=exceeded.code, **exceeded.details)
            return "done"
        timeout = session.time_budget.model_timeout() if session.time_budget is not None else None
        if session.time_budget is not None and timeout is None:
            return "continue"  # no time for a model call: the next step (a fresh invocation) makes it
        assembled = assemble(context_input(session))
        for warning in assembled.warnings:
            session.recorder.warning(warning)
        seq = session.recorder.request(assembled.request)
        session.recorder.event(
            "context_built",
            request_seq=seq,
            blocks=assembled.block_sizes,
            cache_points=assembled.cache_points,
            tools=list(assembled.offered_tools),
        )
        model = session.config.agent.model
        response = live.converse(session, assembled.request, seq, timeout_seconds=timeout)
        priced = charge(session, model.model_id, response.usage, provider=model.provider, first=not session.state.turns)
        budget.charge_model_call(session, response.usage)
        session.recorder.event(
            "model_call", request_seq=seq, stop_reason=response.stop_reason, usage=priced.model_dump()
        )
        if response.stop_reason == GUARDRAIL_INTERVENED:
            finish.blocked_by_guardrail(session, seq, response.text)
            return "done"
        if not response.tool_uses:
            finish.succeed(session, response.text)
            return "done"
        calls, unusable = _record_assistant_turn(session, response)
        for call in calls:
            _handle_call(session, call, assembled.offered_tools, unusable)


def _record_assistant_turn(session: RunSession, response: ModelResponse) -> tuple[list[ToolCallMessage], set[str]]:
    """The assistant turn joins the run's turns: its reasoning blocks verbatim and first (Bedrock rejects a
    tool result whose assistant turn lost its signed thinking), then its text, then its tool calls. Arguments
    that are not an object, or nest deeper than the JSON limit, are kept as ``{}`` (nothing downstream may
    recurse into them) and their call fails as a tool error."""
    run_id, text = session.run.run_id, response.text
    reasoning: list[ChatMessage] = [ReasoningMessage.from_block(block, run_id=run_id) for block in response.reasoning]
    turn: list[ChatMessage] = [TextMessage(role="assistant", text=text, run_id=run_id)] if text.strip() else []
    calls: list[ToolCallMessage] = []
    unusable: set[str] = set()  # call ids whose arguments were refused
    for use in response.tool_uses:
        arguments = use.get("input") or {}
        if not isinstance(arguments, dict) or value_depth_exceeds(arguments):
            unusable.add(str(use["toolUseId"]))
            arguments = {}
        calls.append(ToolCallMessage(call_id=use["toolUseId"], tool=use["name"], arguments=arguments, run_id=run_id))
    session.state.turns += [*reasoning, *turn, *calls]
    session.state.call_order = [call.call_id for call in calls]
    return calls, unusable


def _count(session: RunSession, call: ToolCallMessage) -> None:
    """Limits of SPEC §8: 50 tool calls per run; the same call repeated more than 3 times aborts."""
    state = session.state
    state.tool_calls += 1
    if state.tool_calls > MAX_TOOL_CALLS_PER_RUN:
        raise RunAborted(f"the run made more than {MAX_TOOL_CALLS_PER_RUN} tool calls")
    signature = call.tool + ":" + json.dumps(call.arguments, sort_keys=True, default=str)
    state.call_counts[signature] = state.call_counts.get(signature, 0) + 1
    if state.call_counts[signature] > MAX_IDENTICAL_TOOL_CALLS:
        raise RunAborted(f"the same {call.tool} call was repeated more than {MAX_IDENTICAL_TOOL_CALLS} times")


def _handle_call(session: RunSession, call: ToolCallMessage, offered: tuple[str, ...], unusable: set[str]) -> None:
    _count(session, call)
    session.recorder.event("tool_call", call_id=call.call_id, tool=call.tool, status="requested")
    mode = session.run.tool_approval
    if call.tool not in offered:
        _ready(session, _error(session, call, f"tool {call.tool!r} is not available to this agent"))
    elif call.call_id in unusable:
        _ready(session, _error(session, call, f"{call.tool}: {too_deep_message('the arguments')} or not an object"))
    elif mode == "denied":
        _ready(session, _error(session, call, "tool calls are denied for this run"))
    elif mode == "prompt" and not approvals_remembered.allowed(session, call):
        session.state.pending.append(
            PendingCall(call_id=call.call_id, tool=call.tool, arguments=call.arguments, kind="approval")
        )
    else:
        _run_or_defer(session, call)


def _run_or_defer(session: RunSession, call: ToolCallMessage) -> None:
    """Run the call, unless its tool was taken off the agent while the call waited (approved or deferred: an error)
    or the budget has no time left for it: then the next step runs it (the fast path hands the run off with the
    call deferred in its checkpoint)."""
    if call.tool in INTERNAL_TOOL_SPECS and call.tool != ACTIVATE_SKILL and call.tool not in enabled_tools(session):
        _ready(session, _error(session, call, f"tool {call.tool!r} is no longer available to this agent"))
    elif session.time_budget is not None and session.time_budget.tool_timeout() is None:
        session.state.pending.append(
            PendingCall(call_id=call.call_id, tool=call.tool, arguments=call.arguments, kind="deferred")
        )
    else:
        _run_call(session, call)


def _run_call(session: RunSession, call: ToolCallMessage) -> None:
    if call.tool == DELEGATE_TO_AGENT:
        try:
            validate_arguments(call.tool, INTERNAL_TOOL_SPECS[DELEGATE_TO_AGENT].input_schema, call.arguments)
        except ToolError as exc:
            _ready(session, _error(session, call, exc.message))
            return
        started = delegate.start_delegation(session, call)
        if isinstance(started, PendingCall):
            session.state.pending.append(started)
        else:
            _ready(session, started)
    else:
        _ready(session, tool_exec.execute(session, call))


def _error(session: RunSession, call: ToolCallMessage, message: str) -> ToolResultMessage:
    session.recorder.event("tool_call", call_id=call.call_id, tool=call.tool, status="error", error=f"Error: {message}")
    return ToolResultMessage(
        call_id=call.call_id,
        tool=call.tool,
        content=f"Error: {message}",
        status="error",
        run_id=session.run.run_id,
    )


def _ready(session: RunSession, result: ToolResultMessage) -> None:
    session.state.ready[result.call_id] = result


def _resolve_pending(session: RunSession) -> Outcome | None:
    """Settle what the run waited for, in passes (no recursion): collect finished children, apply the
    people's decisions, run the calls deferred for time, then report what still waits (an outcome) or hand
    the turn's results on."""
    _collect_children(session)
    for approved in _apply_decisions(session):
        _run_or_defer(session, approved)
    deferred = session.state.deferred
    session.state.pending = [p for p in session.state.pending if p.kind != "deferred"]
    for pending in deferred:
        call = ToolCallMessage(
            call_id=pending.call_id, tool=pending.tool, arguments=pending.arguments, run_id=session.run.run_id
        )
        _run_or_defer(session, call)
    return _report_waiting(session)


def _collect_children(session: RunSession) -> None:
    """Every delegation whose child is final (or lost, or refused by the state machine) becomes a result."""
    state = session.state
    refused, state.delegation_refused = state.delegation_refused, False
    ended, state.children_ended = state.children_ended, False  # an unfinished child then never finishes
    still: list[PendingCall] = []
    for pending in state.pending:
        if pending.kind != "delegation":
            still.append(pending)
            continue
        child = session.deps.runs.get_run(pending.child_run_id or "")
        if refused or ended or child is None or child.status.finished:
            _ready(session, delegate.collect(session, pending, child, refused_by_state_machine=refused))
        else:
            still.append(pending)
    state.pending = still


def _apply_decisions(session: RunSession) -> list[ToolCallMessage]:
    """Decided approvals leave the pending list: a denial becomes a tool error, an approval a call to run."""
    state = session.state
    approved: list[ToolCallMessage] = []
    still: list[PendingCall] = []
    for pending in state.pending:
        if pending.kind != "approval" or pending.decision is None:
            still.append(pending)
            continue
        call = ToolCallMessage(
            call_id=pending.call_id, tool=pending.tool, arguments=pending.arguments, run_id=session.run.run_id
        )
        if pending.decision == "deny":
            _ready(session, _error(session, call, "a person denied this tool call"))
            continue
        if pending.decision == "always" and pending.tool not in state.always_allowed:
            state.always_allowed.append(pending.tool)
        approved.append(call)
    state.pending = still
    return approved


def _report_waiting(session: RunSession) -> Outcome | None:
    """An outcome while approvals or children wait; else the turn's results join the conversation."""
    state = session.state
    approvals = state.waiting_approvals
    if approvals:
        session.run.status = RunStatus.WAITING_APPROVAL
        waiting = [
            {"call_id": p.call_id, "tool": p.tool, "arguments": p.arguments}
            for p in approvals
            if p.call_id not in state.approval_reported
        ]
        if waiting:
            state.approval_reported += [p.call_id for p in approvals if p.call_id not in state.approval_reported]
            session.recorder.event("approval_requested", calls=waiting)
        return "await_approval"
    if state.waiting_children:
        session.writes.children = [
            {"run_id": child, "depth": session.run.depth + 1} for child in state.waiting_children
        ]
        return "delegate"
    if state.deferred:
        return "continue"
    if state.call_order:
        state.turns += [state.ready.pop(call_id) for call_id in state.call_order if call_id in state.ready]
        state.call_order = []
        state.ready = {}
    return None
