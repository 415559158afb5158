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
from mneme.engine.config_load import load_run_config
from mneme.engine.deps import Deps
from mneme.engine.finish import fail
from mneme.engine.loop import advance
from mneme.engine.prepare import prepare
from mneme.engine.recorder import Recorder
from mneme.engine.requests import RunRequest
from mneme.engine.session import RunSession
from mneme.engine.state import LoopState, Outcome
from mneme.errors import (
    Conflict,
    MnemeError,
    ModelThrottled,
    NotFound,
    StoreUnavailable,
    Throttled,
)
from mneme.models.chat import Chat
from mneme.models.run import Run, RunStatus
from mneme.models.user import Caller

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

    Independent calls overlap: the query is embedded and the chat read while the config loads, and the
    run record is written while memory is searched (``run_id``: a caller-chosen id, e.g. idempotent).
    """
    request.check_size()
    vector = parallel.submit(_embed, deps, request.input) if deps.memory and deps.embedder else None
    stored_chat = parallel.submit(deps.chats.get_chat, caller.user_id, request.chat_id) if request.chat_id else None
    config = load_run_config(deps.config, caller.user_id, request.agent_id, request.task_id)
    chat = _chat(deps, caller, request, stored_chat.result() if stored_chat else None)
    now = deps.clock.now()
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
    created = parallel.submit(deps.runs.create_run, run)
    state = LoopState(user_text=request.input, is_admin=caller.is_admin, event_triggered=event_triggered)
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
        created.result()
        return _conclude(session, _failed(session, exc), hand_off=False)
    created.result()  # a Conflict (the id exists: an idempotent retry) surfaces before the model is called
    return _drive(session, hand_off=True)


def _embed(deps: Deps, text: str) -> list[float]:
    assert deps.embedder is not None
    return deps.embedder.embed([text])[0]


def _chat(deps: Deps, caller: Caller, request: RunRequest, existing: Chat | None) -> Chat:
    if existing is not None:
        return existing
    now = deps.clock.now()
    chat = Chat(
        chat_id=request.chat_id or deps.ids(),
        user_id=caller.user_id,
        project_id=request.project_id,
        agent_id=request.agent_id,
        title=request.input[:80],
        created_at=now,
        updated_at=now,
    )
    try:
        deps.chats.create_chat(chat)
    except Conflict:  # created concurrently by another run of the same chat
        return deps.chats.get_chat(caller.user_id, chat.chat_id) or chat
    return chat


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
    state = LoopState.model_validate(raw) if raw else LoopState(user_text=run.input)
    if delegation_refused:
        state.extra["delegation_refused"] = True
    approvals.apply_decisions(deps, run_id, state)
    try:
        config = load_run_config(deps.config, run.user_id, run.agent_id, run.task_id)
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
    from mneme.engine.config_load import RunConfig
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
    deps, run = session.deps, session.run
    if outcome != "done":
        deps.runs.save_checkpoint(run.run_id, session.state.model_dump(mode="json"))
    run.updated_at = deps.clock.now()
    session.run = run = deps.runs.update_run(run)
    session.recorder.run = run
    observability.report_step(run, outcome, session.recorder.pending_events())
    session.recorder.flush()
    if hand_off and outcome != "done":
        deps.orchestrator.start(run.run_id, depth=run.depth)
    return StepResult(run, outcome, session.children)


Decision = Literal["once", "always", "deny"]
