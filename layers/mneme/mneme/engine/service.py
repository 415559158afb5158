"""The run engine's entry points: start a run (API, event), step it (state machine), approvals, failure.

Each returns plain data for the handler; errors are mneme exceptions the handler maps in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from mneme import observability
from mneme.delegation import effective_approval
from mneme.engine import approvals, parallel
from mneme.engine.deps import Deps
from mneme.engine.finish import fail
from mneme.engine.loop import advance
from mneme.engine.prepare import prepare
from mneme.engine.recorder import Recorder
from mneme.engine.session import RunSession
from mneme.engine.state import LoopState, Outcome, load_state
from mneme.errors import (
    MnemeError,
    ModelThrottled,
    NotFound,
    StoreUnavailable,
    Throttled,
)
from mneme.memory.limits import clip_query, limit_for
from mneme.memory.policy import apply_run_overrides, merge_policies
from mneme.models.chat import Chat
from mneme.models.requests import RunRequest
from mneme.models.run import Run, RunStatus
from mneme.models.user import Caller
from mneme.ports import RunConfig

#: errors the state machine retries (its Retry names them); anything else fails the run with its reason
TRANSIENT: tuple[type[MnemeError], ...] = (ModelThrottled, StoreUnavailable, Throttled)


@dataclass(frozen=True)
class StepResult:
    run: Run
    outcome: Outcome
    children: list[dict[str, Any]]

    def to_state(self) -> dict[str, Any]:
        """The small payload that travels in the state machine."""
        return {
            "run_id": self.run.run_id,
            "depth": self.run.depth,
            "outcome": self.outcome,
            "children": self.children,
        }


def start_run(
    deps: Deps, caller: Caller, request: RunRequest, *, event_triggered: bool = False, run_id: str | None = None
) -> StepResult:
    """Create a run and drive it on the fast path; hand it to the state machine when it must wait.

    Independent calls overlap: the chat's tail is read while the config loads, and the query is embedded
    (only when the run's policy auto-injects memory) while the chat read and the run creation finish. A new
    chat and the run item are written by the step's end, together with the turn (no empty chat, no run
    item for a request that failed validation); with a caller-chosen ``run_id`` (idempotent requests) the
    run item is created first, while memory is searched, so a duplicate is refused before the model runs.
    """
    request.check_size()
    stored_chat = (
        parallel.submit(deps.chats.get_chat_tail, caller.user_id, request.chat_id) if request.chat_id else None
    )
    config = deps.config.load_run_config(caller.user_id, request.agent_id, request.task_id)
    vector = parallel.submit(_embed, deps, request.input) if _auto_injects(deps, config, request) else None
    existing = stored_chat.result() if stored_chat else None
    chat = existing or _new_chat(deps, caller, request)
    now = deps.clock.now()
    idempotent = run_id is not None
    run_id = run_id or deps.ids()
    run = Run(
        run_id=run_id,
        user_id=caller.user_id,
        agent_id=config.agent.agent_id,
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
        created_at=now,
        updated_at=now,
    )
    created = parallel.submit(deps.runs.create_run, run) if idempotent else None
    state = LoopState(
        user_text=request.input,
        is_admin=caller.is_admin,
        event_triggered=event_triggered,
        new_chat=None if existing else chat.model_dump(mode="json", exclude={"messages"}),
        persisted=created is not None,
    )
    session = RunSession(
        deps,
        run,
        state,
        config,
        Recorder(deps, run, state),
        deadline=deps.monotonic() + deps.settings.fast_path_budget_seconds,
    )
    session.query_vector = vector
    memory = request.memory
    try:
        prepare(
            session,
            chat=chat,
            memory_enabled=memory.enabled if memory else None,
            top_k=memory.top_k if memory else None,
        )
    except MnemeError as exc:
        if created is not None:
            created.result()
        return _conclude(session, _failed(session, exc), hand_off=False)
    if created is not None:
        created.result()  # a Conflict (the id exists: an idempotent retry) surfaces before the model is called
    return _drive(session, hand_off=True)


def _auto_injects(deps: Deps, config: RunConfig, request: RunRequest) -> bool:
    """Will this run search memory before its first model call? Only then is the query embedded early."""
    if deps.memory is None or deps.embedder is None:
        return False
    memory = request.memory
    policy = apply_run_overrides(
        merge_policies(config.agent.memory_policy, config.task.memory_policy if config.task else None),
        enabled=memory.enabled if memory else None,
        top_k=memory.top_k if memory else None,
    )
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
    deps: Deps, run_id: str, *, delegation_refused: bool = False, entered_at: datetime | None = None
) -> StepResult:
    """One step inside the state machine: resume a checkpointed run (or start a child) until it waits."""
    run = deps.runs.get_run(run_id)
    if run is None:
        raise NotFound(f"no run {run_id!r}")
    if run.status.finished:
        return StepResult(run, "done", [])
    raw = deps.runs.load_checkpoint(run_id)
    state = load_state(raw) if raw else LoopState(user_text=run.input)
    state.delegation_refused = delegation_refused
    approvals.apply_decisions(deps, run_id, state)
    try:
        config = deps.config.load_run_config(run.user_id, run.agent_id, run.task_id)
    except MnemeError as exc:
        session = RunSession(deps, run, state, _placeholder_config(run), Recorder(deps, run, state))
        return _conclude(session, _failed(session, exc), hand_off=False)
    session = RunSession(
        deps,
        run,
        state,
        config,
        Recorder(deps, run, state, base_time=entered_at),
        deadline=deps.monotonic() + deps.settings.fast_path_budget_seconds,
    )
    if run.task_id is None and config.task is not None:
        run.task_id = config.task.task_id  # a child delegated without a task runs its agent's default task
    if not state.initialized:
        prepare(session, chat=None, memory_enabled=None, top_k=None)
    return _drive(session, hand_off=False)


def _placeholder_config(run: Run) -> Any:
    from mneme.models.agent import Agent
    from mneme.models.user import UserSettings

    return RunConfig(UserSettings(), Agent(agent_id=run.agent_id, label=run.agent_id), None, {})


def _failed(session: RunSession, exc: MnemeError) -> Outcome:
    fail(session, f"{type(exc).__name__}: {exc.message}")
    return "done"


def _drive(session: RunSession, *, hand_off: bool) -> StepResult:
    try:
        outcome = advance(session)
    except TRANSIENT as exc:
        if not hand_off:
            session.recorder.flush()
            raise  # the state machine retries the step with backoff, from the last checkpoint
        session.recorder.warning(f"{type(exc).__name__}: {exc.message}; the run continues in the state machine")
        outcome = "continue"
    except MnemeError as exc:
        outcome = _failed(session, exc)
    return _conclude(session, outcome, hand_off=hand_off)


def _conclude(session: RunSession, outcome: Outcome, *, hand_off: bool) -> StepResult:
    """End the step: the run, its events, requests and checkpoint in one commit, beside the chat and queue
    writes of a successful run (one sequential round trip); then hand a waiting run to the state machine."""
    deps, run, state = session.deps, session.run, session.state
    writes = [parallel.submit(write) for write in session.after_writes]
    create, state.persisted = not state.persisted, True
    run.updated_at = deps.clock.now()
    observability.report_step(run, outcome, session.recorder.pending_events())
    events, requests = session.recorder.take()
    checkpoint = state.model_dump(mode="json") if outcome != "done" else None
    session.run = run = deps.runs.commit(run, create=create, events=events, requests=requests, checkpoint=checkpoint)
    session.recorder.run = run
    for warning in (message for write in writes for message in write.result()):
        session.recorder.warning(warning)
    session.recorder.flush()
    if hand_off and outcome != "done":
        deps.orchestrator.start(run.run_id, depth=run.depth)
    return StepResult(run, outcome, session.children)


Decision = Literal["once", "always", "deny"]
