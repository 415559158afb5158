"""Delegation inside the run engine (SPEC §6): create child runs, and collect their results.

A child run counts against its user's runs per minute like a run started over the API (issue 31.3); one
past the limit, or past the tree's budget, is refused as a tool error the parent's model sees.

Children always execute inside the state machine: the parent's step answers ``delegate`` with the child
run ids; after the Map state, the parent's next step reads each child's outcome from the run store.
"""

from __future__ import annotations

from datetime import datetime

from mneme import telemetry
from mneme.context.tools import DELEGATE_TO_AGENT
from mneme.delegation_rules import context_mode, effective_approval, resolve_target, sub_run_context
from mneme.engine.runs import budget, forking
from mneme.engine.runs.approvals import mark_failed
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.state import LoopState, PendingCall
from mneme.errors import AuditWriteFailed, DelegationRefused
from mneme.models.agent import Agent
from mneme.models.chat import ChatMessage, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.models.common import is_slug
from mneme.models.precondition import etag_of
from mneme.models.run import Run, RunStatus


def parent_conversation(session: RunSession) -> list[ChatMessage]:
    """What the child inherits: the parent's history, its user message, and its turns so far."""
    state = session.state
    user = TextMessage(role="user", text=state.user_text)
    return [*state.history, user, *state.turns]


def _audit(session: RunSession, action: str, **detail: object) -> None:
    try:
        session.recorder.audit(action, [None], **detail)  # type: ignore[arg-type]
    except AuditWriteFailed:
        session.recorder.warning(f"the audit record of a {action} could not be written", **detail)


def start_delegation(session: RunSession, call: ToolCallMessage) -> PendingCall | ToolResultMessage:
    """Check the guards and create the child run; a refusal is a tool error the model sees."""
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool,
        "gen_ai.tool.call.id": call.call_id,
        "gen_ai.tool.type": "agent",
        "mneme.run_id": session.run.run_id,
    }
    with telemetry.span(f"execute_tool {call.tool}", attributes) as span:
        started = _start_delegation(session, call)
        if isinstance(started, PendingCall):
            span.set_many({"mneme.tool.status": "started", "mneme.child_run_id": started.child_run_id})
        else:
            span.set_many({"mneme.tool.status": started.status})
        return started


def _target(session: RunSession, reference: str) -> Agent:
    """The agent ``reference`` names: looked up by id first (one read; a delegate is usually named by its
    id), else from the listing of every agent the user may use, which also decides every refusal and
    every label. Both give the same agent: an id match comes first in :func:`resolve_target`'s order."""
    run, config = session.run, session.deps.config
    caller = session.config.agent
    agent_id = reference.strip().casefold()
    direct = config.find_agent(run.user_id, agent_id) if is_slug(agent_id) else None
    if direct is not None:
        try:
            return resolve_target(reference, caller=caller, candidates=[direct], depth=run.depth)
        except DelegationRefused:
            pass  # the listing says why (or finds a label that names a delegate)
    return resolve_target(reference, caller=caller, candidates=config.visible_agents(run.user_id), depth=run.depth)


def _check_task(session: RunSession, target: Agent, task: object) -> None:
    """A task the delegate does not have is refused before a child starts: the child failed at its first step,
    counted against the user's runs and the tree's budget."""
    if task and session.deps.config.get_task(target.owner, target.agent_id, str(task)) is None:
        raise DelegationRefused(
            f"delegation refused: agent {target.agent_id!r} has no task {str(task)!r}", field="task"
        )


def _start_delegation(session: RunSession, call: ToolCallMessage) -> PendingCall | ToolResultMessage:
    run = session.run
    reference = str(call.arguments.get("agent", ""))
    try:
        target = _target(session, reference)
        _check_task(session, target, call.arguments.get("task"))
        mode = context_mode(session.config.agent, target, call.arguments.get("context"))
        fork = forking.fork_of(session) if mode == "fork" else None
        # the last guards: a sub-run counts against the user's runs per minute, then the tree's budget; a
        # refused delegation counts and reserves nothing
        counted_at = session.deps.clock.now()
        refusal = _count_start(session, counted_at)
        if refusal is None:
            refusal = budget.reserve_child(session)
            if refusal is not None:
                _give_back_start(session, counted_at)
        if refusal is not None:
            raise DelegationRefused(refusal, field="agent")
    except DelegationRefused as exc:
        return _refused(session, call, reference, exc.message)
    task = call.arguments.get("task")
    context = sub_run_context(
        run,
        parent_conversation(session),
        agent_id=target.agent_id,
        input=str(call.arguments["input"]),
        task_id=str(task) if task else None,
        context=mode,
        own_approval_default=target.tool_approval_default,
    )
    now = session.deps.clock.now()
    child = Run(
        run_id=session.deps.ids(),
        user_id=run.user_id,
        agent_id=target.agent_id,
        agent_version=etag_of(target),
        task_id=context.task_id,
        chat_id=run.chat_id,
        project_id=run.project_id,
        session_id=run.session_id,
        depth=context.depth,
        parent_run_id=run.run_id,
        root_run_id=context.root_run_id,
        status=RunStatus.QUEUED,
        input=context.input,
        # the narrowed mode, and in an event's tree (nobody to ask) prompt becomes denied, as for its root
        tool_approval=effective_approval(
            context.tool_approval, target.tool_approval_default, event_triggered=session.state.event_triggered
        ),
        lineage=[*run.lineage, run.run_id],
        budget=run.budget,
        created_at=now,
        updated_at=now,
    )
    child_state = LoopState(
        user_text=context.input,
        is_admin=session.state.is_admin,
        event_triggered=session.state.event_triggered,
        history=list(context.history) if fork is None else fork[1],
        fork=fork[0] if fork is not None else None,
    )
    session.deps.runs.create_run(child)
    session.deps.runs.save_checkpoint(child.run_id, child_state.model_dump(mode="json"))
    run.children.append(child.run_id)
    session.recorder.event(
        "delegation_started",
        call_id=call.call_id,
        child_run_id=child.run_id,
        agent_id=target.agent_id,
        depth=child.depth,
        context=mode,
    )
    _audit(
        session,
        "delegation",
        parent_run_id=run.run_id,
        child_run_id=child.run_id,
        agent_id=target.agent_id,
        depth=child.depth,
        outcome="started",
    )
    return PendingCall(
        call_id=call.call_id,
        tool=DELEGATE_TO_AGENT,
        arguments=call.arguments,
        kind="delegation",
        child_run_id=child.run_id,
        child_agent_id=target.agent_id,
    )


def _count_start(session: RunSession, now: datetime) -> str | None:
    """Issue 31.3: every run a user's tree starts counts against the user's runs per minute, as a run
    started over the API does (``mneme.engine.runs.admission``): None when counted, else why the child is refused."""
    deps = session.deps
    limit = deps.settings.runs_per_user_per_minute
    if limit <= 0:
        return None
    retry_after = deps.rates.hit(session.run.user_id, now=now, limit=limit)
    if retry_after is None:
        return None
    return (
        f"delegation refused: rate_limited — {limit} runs (sub-agents included) were started in the last "
        f"minute, the limit; retry in {retry_after} s or answer with what you have"
    )


def _give_back_start(session: RunSession, now: datetime) -> None:
    """The child counted against the rate was refused by the budget: it started nothing."""
    deps = session.deps
    if deps.settings.runs_per_user_per_minute > 0:
        deps.rates.refund(session.run.user_id, now=now)


def _refused(session: RunSession, call: ToolCallMessage, reference: str, reason: str) -> ToolResultMessage:
    """A refused delegation: audited, and a tool error the calling model sees."""
    run = session.run
    _audit(session, "delegation_refused", parent_run_id=run.run_id, agent=reference, depth=run.depth, reason=reason)
    session.recorder.event("tool_call", call_id=call.call_id, tool=call.tool, status="error", error=f"Error: {reason}")
    return ToolResultMessage(
        call_id=call.call_id, tool=call.tool, content=f"Error: {reason}", status="error", run_id=run.run_id
    )


#: why a child is failed whose execution ended while its run was unfinished
LOST = {
    "Error": "ChildExecutionEnded",
    "Cause": "its execution ended before its run finished (it could not be started, or it failed without "
    "recording why)",
}


def _lost(session: RunSession, child: Run) -> Run:
    """The parent's delegation state is over, so the child's execution has ended, yet its run is unfinished: it
    will never finish (started again, it would only run what it ran before). It is failed with the reason."""
    mark_failed(session.deps, child.run_id, LOST)
    return session.deps.runs.get_run(child.run_id) or child


def collect(
    session: RunSession, pending: PendingCall, child: Run | None, *, refused_by_state_machine: bool
) -> ToolResultMessage:
    """The child's final text, or a tool error with the reason (never an empty success)."""
    run = session.run
    budget.release_child(session)
    if not refused_by_state_machine and child is not None and not child.status.finished:
        child = _lost(session, child)
    if refused_by_state_machine:
        content, status, outcome = (
            "Error: the delegation depth limit (5) was reached; no sub-agent was started",
            "error",
            "refused",
        )
        if child is not None and not child.status.finished:
            child.status, child.error = RunStatus.CANCELLED, "refused by the state machine's depth guard"
            session.deps.runs.update_run(child)
    elif child is None:
        content, status, outcome = "Error: the sub-agent run was lost", "error", "failed"
    elif child.status is RunStatus.SUCCEEDED and (child.output or "").strip():
        content, status, outcome = child.output or "", "success", "succeeded"
        run.tree_usage = run.tree_usage + child.tree_usage
    elif child.status is RunStatus.SUCCEEDED:  # never an empty success (SPEC §6): no text is no answer
        content, status, outcome = (
            f"Error: the sub-agent {child.agent_id!r} gave no answer (its model ended its turn without any text)",
            "error",
            "succeeded",
        )
        run.tree_usage = run.tree_usage + child.tree_usage
    elif child.status is RunStatus.CANCELLED:
        content, status, outcome = (
            f"Error: the sub-agent {child.agent_id!r} was cancelled ({child.error or 'no reason given'}); "
            "it gave no answer",
            "error",
            "cancelled",
        )
        run.tree_usage = run.tree_usage + child.tree_usage
    else:
        reason = child.error or f"it ended as {child.status.value}"
        content, status, outcome = (
            f"Error: the sub-agent {child.agent_id!r} failed: {reason}",
            "error",
            "failed",
        )
        run.tree_usage = run.tree_usage + child.tree_usage
    session.recorder.event(
        "delegation_finished",
        call_id=pending.call_id,
        child_run_id=pending.child_run_id,
        agent_id=pending.child_agent_id,
        depth=run.depth + 1,
        outcome=outcome,
    )
    session.recorder.event(
        "tool_call",
        call_id=pending.call_id,
        tool=pending.tool,
        status=status,
        **({"error": content} if status == "error" else {}),
    )
    _audit(
        session,
        "delegation",
        parent_run_id=run.run_id,
        child_run_id=pending.child_run_id,
        agent_id=pending.child_agent_id,
        depth=run.depth + 1,
        outcome=outcome,
    )
    return ToolResultMessage(
        call_id=pending.call_id, tool=pending.tool, content=content, status=status, run_id=run.run_id
    )
