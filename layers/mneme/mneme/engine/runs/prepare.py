"""Prepare a run before its first model call: history (rolling summary), policy, memory auto-inject, and the
tools of the agent's MCP servers."""

from __future__ import annotations

from collections.abc import Sequence

from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.standing import Standing, read_standing, with_standing
from mneme.engine.runs import budget, mcp_tools
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.spans import in_run_span
from mneme.engine.runs.time_budget import TimeBudget
from mneme.engine.runs.usage import charge
from mneme.errors import AuditWriteFailed, MemoryUnavailable, MnemeError, ModelUnavailable, StoreUnavailable
from mneme.history import compress
from mneme.memory.access import ReadAccess, auto_inject_access, standing_access
from mneme.memory.policy import apply_run_overrides, merge_policies
from mneme.memory.ranking import Dropped, Ranked
from mneme.models.audit import AuditAction
from mneme.models.chat import Chat, ChatMessage
from mneme.models.policy import ResolvedPolicy
from mneme.models.run_request import MemoryOverride
from mneme.ports.models import FAILED_REQUEST, Summarizer, Summary
from mneme.ports.stores import RunConfig
from mneme.records import replace

#: the mark of the rolling summary's model call, on its recorded request and its ``model_call`` event
SUMMARY = {"purpose": "summary"}


def run_policy(config: RunConfig, memory: MemoryOverride | None) -> ResolvedPolicy:
    """The run's memory policy, merged once per run: the agent's, the task's over it, the request's overrides."""
    return apply_run_overrides(
        merge_policies(config.agent.memory_policy, config.task.memory_policy if config.task else None),
        enabled=memory.enabled if memory else None,
        top_k=memory.top_k if memory else None,
    )


@in_run_span("prepare")
def prepare(session: RunSession, *, chat: Chat | None, policy: ResolvedPolicy) -> None:
    """Fill the loop state of a new run (a master with its chat, or a child with its inherited history)."""
    state, run = session.state, session.run
    state.started_at = state.started_at or session.deps.clock.now()
    state.policy = policy
    session.recorder.event(  # first: the rolling summary's model call and warnings are the run's own
        "run_started",
        agent_id=run.agent_id,
        task_id=run.task_id,
        depth=run.depth,
        parent_run_id=run.parent_run_id,
        chat_id=run.chat_id,
    )
    if chat is not None:
        _chat_history(session, chat)
    default_task = session.config.agent.default_task_id
    if default_task and session.config.task is None and run.task_id is None:
        session.recorder.warning(f"the agent's default task {default_task!r} does not exist: the run has no task")
    discovery = mcp_tools.start_discovery(session)  # the MCP servers answer while memory is searched
    _auto_inject(session)
    mcp_tools.finish_discovery(session, discovery)
    state.initialized = True


def _chat_history(session: RunSession, chat: Chat) -> None:
    settings, state = session.deps.settings, session.state
    summarizer = _Budgeted(session.deps.summarizer or _NoSummarizer(), session)
    view = compress(
        chat.messages,
        summary=chat.summary,
        covers=chat.summary_covers,
        first_seq=chat.first_seq,
        covered_skills=chat.summary_skills,
        summarizer=summarizer,
        skills=session.config.skills,
        trigger_tokens=settings.summary_trigger_tokens,
        trigger_messages=settings.summary_trigger_messages,
    )
    if view.summary_call is not None:
        _summary_call(session, view.summary_call)
    if view.warning:  # a failed call's warning names its recorded request, as the run's own model_call events do
        failed = {} if summarizer.failed_seq is None else {**SUMMARY, "request_seq": summarizer.failed_seq}
        session.recorder.warning(view.warning, **failed)
    if view.changed and view.new_summary is not None:
        try:
            session.deps.chats.set_summary(
                chat.user_id, chat.chat_id, view.new_summary, view.new_covers, view.covered_skills
            )
        except StoreUnavailable:
            session.recorder.warning("the new chat summary could not be stored; it is recomputed next time")
    state.history = list(view.messages)
    state.reattached_skills = list(view.reattached_skill_blocks)
    state.chat_message_count = chat.message_count


def _summary_call(session: RunSession, call: Summary) -> None:
    """The summary call is one of the run's model calls (SPEC §10): priced, counted in ``model_calls`` and the
    tree's budget, and its request recorded in call order — before the run's own — marked
    ``"purpose": "summary"`` as its ``model_call`` event is."""
    priced = charge(session, call.model_id, call.usage, provider=call.provider, first=True)
    budget.charge_model_call(session, call.usage)
    seq = {} if call.request is None else {"request_seq": session.recorder.request({**call.request, **SUMMARY})}
    session.recorder.event("model_call", **SUMMARY, **seq, model_id=call.model_id, usage=priced.model_dump())


class _NoSummarizer:
    def summarize(
        self, previous_summary: str | None, messages: Sequence[ChatMessage], *, timeout_seconds: float | None = None
    ) -> Summary:
        raise MemoryUnavailable("no summarizer is configured")


class _Budgeted:
    """The summary call inside the step's time budget and the tree's budget: it gets at most the time a model
    call may still take (on the fast path, what is left of the 20 s), and is not made when no model call could
    be, or when the tree's budget has no room for it and the run's own call (the history stays as it is, with a
    warning, and the run goes on to its own model call or its hand-off)."""

    def __init__(self, inner: Summarizer, session: RunSession) -> None:
        self._inner, self._session = inner, session
        self.failed_seq: int | None = None  # the recorded request of a call that failed

    def summarize(
        self, previous_summary: str | None, messages: Sequence[ChatMessage], *, timeout_seconds: float | None = None
    ) -> Summary:
        time_budget: TimeBudget | None = self._session.time_budget
        if time_budget is None:  # the preview: no budget of its own
            return self._inner.summarize(previous_summary, messages)
        refused = budget.summary_refused(self._session)
        if refused is not None:
            raise refused
        left = time_budget.model_timeout()
        if left is None:
            raise ModelUnavailable("no time is left in this step for the summary call")
        try:
            return self._inner.summarize(previous_summary, messages, timeout_seconds=left)
        except MnemeError as exc:  # a request that was sent is recorded in call order, as every model call's is
            request = exc.details.get(FAILED_REQUEST)
            if isinstance(request, dict):
                self.failed_seq = self._session.recorder.request({**request, **SUMMARY})
            raise


def _auto_inject(session: RunSession) -> None:
    """Query = the raw user text; the security filter; the read audited before the hits are used. The standing
    entries (``memory_io.standing``) come first, whatever the question; the ``memory_hits`` event counts them
    apart (``standing``), also when the question's search failed."""
    state = session.state
    via = "preview" if session.context.preview else "auto_inject"
    action: AuditAction = "preview" if session.context.preview else "read"
    standing = _standing(session, via=via, action=action)
    state.hits = list(standing.hits)
    access = auto_inject_access(state.policy, session.scope)
    for warning in access.warnings:
        session.recorder.warning(warning)
    ranked = _search(session, access, via=via, action=action) if access.allowed or access.denied else None
    if ranked is None and standing.read is None:
        return
    ranked = ranked or Ranked(hits=[], dropped=Dropped(), candidates=0)
    state.hits = with_standing(standing, ranked.hits)
    event = memory_ops.hits_event(ranked, access, session.ranking, session.memory.model_id)
    session.recorder.event("memory_hits", via=via, **event, **standing.event())


def _search(session: RunSession, access: ReadAccess, *, via: str, action: AuditAction) -> Ranked | None:
    """The question's search, its read audited; None (and a warning) when the store or the audit fails."""
    try:
        query_vector = session.context.query_vector
        return memory_ops.search_explained(
            session.memory,
            session.records,
            access,
            session.state.user_text,
            replace(session.ranking, lines=True),  # what the model reads: chat lines with their conversation
            via=via,
            vector=query_vector.result() if query_vector is not None else None,
            action=action,
        )
    except MemoryUnavailable as exc:
        session.recorder.warning(f"memory unavailable, the run continues without it: {exc.message}")
    except AuditWriteFailed:
        session.recorder.warning("the memory read could not be audited, so its hits are not used")
    return None


def _standing(session: RunSession, *, via: str, action: AuditAction) -> Standing:
    """The policy's standing entries, their read audited; none (and a warning) when the store or the audit fails."""
    access = standing_access(session.state.policy, session.scope)
    for warning in access.warnings:
        session.recorder.warning(warning)
    if not access.allowed and not access.denied:
        return Standing()
    try:
        return read_standing(session.memory, session.records, access, via=via, action=action)
    except MemoryUnavailable as exc:
        session.recorder.warning(f"memory unavailable, the standing memories are not shown: {exc.message}")
    except AuditWriteFailed:
        session.recorder.warning("the standing memories' read could not be audited, so they are not shown")
    return Standing()
