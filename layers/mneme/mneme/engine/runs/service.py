"""The run engine's entry points: start a run (API, event), step it (state machine), approvals, failure.

Each returns plain data for the handler; errors are mneme exceptions the handler maps in one place. How a
step ends — whatever it raised — is decided in one place, the step driver (:mod:`mneme.engine.runs.step_end`).
"""

from __future__ import annotations

from concurrent.futures import Future
from datetime import datetime
from typing import Any, Literal

from mneme.delegation_rules import effective_approval
from mneme.engine import parallel
from mneme.engine.deps import Deps
from mneme.engine.runs import approvals, budget, pinned_config
from mneme.engine.runs.commit import lease_until
from mneme.engine.runs.loop import advance
from mneme.engine.runs.prepare import prepare, run_policy
from mneme.engine.runs.recorder import Recorder
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.state import LoopState, Outcome, load_state
from mneme.engine.runs.step_end import TRANSIENT, StepResult, finish, settle
from mneme.engine.runs.time_budget import TimeBudget
from mneme.errors import (
    Conflict,
    NotFound,
)
from mneme.memory.embedding_limits import clip_query, limit_for
from mneme.models.chat import Chat
from mneme.models.policy import ResolvedPolicy
from mneme.models.precondition import etag_of
from mneme.models.run import Run, RunStatus
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller
from mneme.ports.stores import RunConfig
from mneme.records import replace

__all__ = ["TRANSIENT", "StepResult", "start_run", "step"]


def start_run(
    deps: Deps,
    caller: Caller,
    request: RunRequest,
    *,
    event_triggered: bool = False,
    run_id: str | None = None,
    request_digest: str | None = None,
    admission: Future[Any] | None = None,
) -> StepResult:
    """Create a run and drive it on the fast path; hand it to the state machine when it must wait.

    ``admission``, when given, is the caller's start being counted against a limit meanwhile: it is waited
    for once the config is read, before anything is embedded, written or spent — a refusal (or its
    absence) wins over what the config read found.

    Independent calls overlap: the chat's tail is read while the config loads, and the query is embedded
    (only when the run's policy auto-injects memory) while the chat read and the run creation finish. A new
    chat and the run item are written by the step's end, together with the turn (no empty chat, no run
    item for a request that failed validation); with a caller-chosen ``run_id`` (idempotent requests) the
    run item is created first, while memory is searched, so a duplicate is refused before the model runs.
    """
    request.check_size()
    time_budget = TimeBudget.fast(deps.settings, deps.monotonic)
    stored_chat = (
        parallel.submit(deps.chats.get_chat_tail, caller.user_id, request.chat_id) if request.chat_id else None
    )
    try:
        config = deps.config.load_run_config(caller.user_id, request.agent_id, request.task_id)
    finally:
        if admission is not None:
            admission.result()  # RateLimited: a 429 before anything else, even for an unknown agent
    vector = None
    policy = run_policy(config, request.memory)  # merged once: it decides the early embedding, the run keeps it
    if _auto_injects(deps, policy):  # the read will be audited: its chain head is read meanwhile
        vector = parallel.submit(_embed, deps, request.input)
        parallel.submit(deps.audit.warm, caller.user_id)
    existing = stored_chat.result() if stored_chat else None
    chat = existing or _new_chat(deps, caller, request)
    now = deps.clock.now()
    idempotent = run_id is not None
    run_id = run_id or deps.ids()
    run = Run(
        run_id=run_id,
        user_id=caller.user_id,
        agent_id=config.agent.agent_id,
        agent_version=etag_of(config.agent),
        task_id=config.task.task_id if config.task else None,
        chat_id=chat.chat_id,
        project_id=request.project_id or chat.project_id,
        session_id=request.session_id,
        depth=0,
        root_run_id=run_id,
        status=RunStatus.RUNNING,
        input=request.input,
        tool_approval=effective_approval(
            request.tool_approval, config.agent.tool_approval_default, event_triggered=event_triggered
        ),
        budget=budget.limits_for(deps, config.agent, request.budget),
        created_at=now,
        updated_at=now,
        lease_until=lease_until(deps, now),
        request_digest=request_digest,
    )
    created = parallel.submit(deps.runs.create_run, run) if idempotent else None
    state = LoopState(
        user_text=request.input,
        is_admin=caller.is_admin,
        event_triggered=event_triggered,
        new_chat=None if existing else chat.model_dump(mode="json", exclude={"messages"}),
        persisted=created is not None,
    )
    recorder = Recorder(deps, run, state)
    session = RunSession.start(deps, run, state, config, recorder, time_budget=time_budget, query_vector=vector)

    def setup() -> Outcome | None:
        prepare(session, chat=chat, policy=policy)
        return None

    refused = settle(session, setup, transient="fail")
    if created is not None:
        created.result()  # a Conflict (the id exists: an idempotent retry) surfaces before the model is called
    if refused is not None:
        return finish(session, refused, hand_off=True)
    return finish(session, settle(session, lambda: advance(session), transient="hand_off"), hand_off=True)


def _auto_injects(deps: Deps, policy: ResolvedPolicy) -> bool:
    """Will this run search memory before its first model call? Only then is the query embedded early."""
    if deps.memory is None or deps.embedder is None:
        return False
    return policy.auto_read_enabled and bool(policy.read_namespaces)


def _embed(deps: Deps, text: str) -> list[float]:
    assert deps.embedder is not None
    return deps.embedder.embed([clip_query(text, limit_for(deps.embedder.model_id))])[0]


def _new_chat(deps: Deps, caller: Caller, request: RunRequest) -> Chat:
    """A chat for this run; stored with the run's first turn (see finish._store_turn)."""
    now = deps.clock.now()
    return Chat(
        chat_id=request.chat_id or deps.ids(),
        user_id=caller.user_id,
        project_id=request.project_id,
        agent_id=request.agent_id,
        title=request.input[:80],
        created_at=now,
        updated_at=now,
    )


def step(
    deps: Deps,
    run_id: str,
    *,
    delegation_refused: bool = False,
    children_ended: bool = False,
    entered_at: datetime | None = None,
    execution_arn: str | None = None,
) -> StepResult:
    """One step inside the state machine: resume a checkpointed run (or start a child) until it waits.

    ``children_ended``: the step follows the delegation states, whose nested executions have all ended
    (succeeded, failed, or never started); a child whose run is still unfinished then will never finish."""
    run = deps.runs.get_run(run_id)
    if run is None:
        raise NotFound(f"no run {run_id!r}")
    if run.status.finished:
        return StepResult(run, "done", [])
    if execution_arn and run.execution_arn != execution_arn:  # once per execution: what a cancel stops
        try:
            run = deps.runs.update_run(run.model_copy(update={"execution_arn": execution_arn}))
        except Conflict:  # cancelled (or finished) a moment ago
            run = deps.runs.get_run(run_id) or run
            if run.status.finished:
                return StepResult(run, "done", [])
            raise
    state, unreadable = _stored_state(deps, run)
    state.delegation_refused = delegation_refused
    state.children_ended = children_ended
    recorder = Recorder(deps, run, state, base_time=entered_at)
    time_budget = TimeBudget.step(deps.settings, deps.monotonic)
    session = RunSession.start(deps, run, state, _placeholder_config(run), recorder, time_budget=time_budget)

    def work() -> Outcome:
        if unreadable is not None:
            raise unreadable
        approvals.apply_decisions(deps, run_id, state)
        config = _step_config(deps, run, state)
        session.context = replace(session.context, config=config)  # loaded inside the step: its errors settle
        if run.task_id is None and config.task is not None:
            run.task_id = config.task.task_id  # a child delegated without a task runs its agent's default task
        if not state.initialized:
            prepare(session, chat=None, policy=run_policy(config, None))
        return advance(session)

    return finish(session, settle(session, work, transient="raise"), hand_off=False)


def _step_config(deps: Deps, run: Run, state: LoopState) -> RunConfig:
    """The configuration this step runs: the one the run started with, narrowed to what the agent as stored now
    still grants (:mod:`mneme.engine.runs.pinned_config`); else (a child's first step, a checkpoint from before
    version 6) as stored now. A run's task is settled by its first step: a later step of a run without one looks
    none up. A child runs, and names, the agent its first step loads."""
    current = deps.config.load_run_config(run.user_id, run.agent_id, run.task_id, default_task=not state.initialized)
    if state.config is not None:
        return pinned_config.narrowed(pinned_config.unpin(state.config), current)
    if not state.initialized:
        run.agent_version = etag_of(current.agent)
    return current


def _stored_state(deps: Deps, run: Run) -> tuple[LoopState, Exception | None]:
    """The run's checkpoint; one that cannot be read fails the step (its events continue after the stored
    ones, so the failure is recorded without overwriting any)."""
    try:
        raw = deps.runs.load_checkpoint(run.run_id)
        return (load_state(raw) if raw else LoopState(user_text=run.input)), None
    except ValueError as exc:  # pydantic's ValidationError included: a newer release's or a damaged checkpoint
        seq = max((event.seq for event in deps.runs.iter_events(run.run_id)), default=0)
        return LoopState(user_text=run.input, event_seq=seq), exc


def _placeholder_config(run: Run) -> Any:
    """The configuration a step works with until (and if) the real one is loaded."""
    from mneme.models.agent import Agent
    from mneme.models.user import UserSettings

    return RunConfig(UserSettings(), Agent(agent_id=run.agent_id, label=run.agent_id), None, {})


Decision = Literal["once", "always", "deny"]
