"""The end of a step, written in one order and undone in one place (issue 34).

The order: (1) the chat turn of a successful master run (:func:`store_turn`, before anything says the run
succeeded: a turn that cannot be stored fails the run instead); (2) the run, its events, requests and
checkpoint in one commit (:func:`commit`); (3) the auto-write jobs, queued beside the commit on the fast path
(nobody could address the run for a cancel before its answer) or after it in a state machine step
(:func:`queue_jobs`); (4) the events to the run's live followers and the queue's warnings (:func:`publish`).

The undo: a step whose run does not succeed with its stored turn — a cancel met at the commit
(:func:`yield_to_cancel`), or a crash in the step or its commit — takes the turn back (:func:`take_back_turn`),
unless the chat has moved on since. What the step will write is its :class:`~mneme.engine.runs.ending.Ending`.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from datetime import datetime, timedelta

from mneme import observability
from mneme.engine import parallel
from mneme.engine.deps import Deps
from mneme.engine.runs import cancel, live, pinned_config
from mneme.engine.runs.ending import StoredTurn
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.state import Outcome
from mneme.errors import Conflict, MnemeError, NotFound, QueueUnavailable, StoreUnavailable, Throttled
from mneme.models.chat import Chat, ChatMessage
from mneme.models.run import Run, RunEvent
from mneme.ports.memory import MemoryWriteJob
from mneme.records import asdict
from mneme.spec_limits import LEASE_GRACE_SECONDS


def lease_until(deps: Deps, now: datetime) -> datetime:
    """How long a run may go without a step ending before the sweeper may fail it (if nothing runs it):
    a step never outlives the function timeout."""
    return now + timedelta(seconds=deps.settings.run_function_timeout_seconds + LEASE_GRACE_SECONDS)


# ---------------------------------------------------------------------------------------------- 1. the turn
def store_turn(session: RunSession, messages: list[ChatMessage]) -> str | None:
    """Store the run's messages once (a retried step finds them stored); a new chat is created with them.
    Answers why they could not be stored (None when they are)."""
    run, state = session.run, session.state
    create, expected = state.new_chat is not None, state.chat_message_count
    problem = "the chat changed concurrently"
    try:
        for _ in range(3):
            try:
                session.ending.turn = _write_turn(session, messages, create=create, expected=expected)
                return None
            except Conflict:  # the chat exists (created meanwhile), or it grew: append after what is there
                problem = "the chat changed concurrently"
                chat = session.deps.chats.get_chat_tail(run.user_id, run.chat_id or "", since=expected)
                if _stored_earlier(session, chat):
                    return None
                create, expected = chat is None, chat.message_count if chat else 0
            except NotFound:  # the chat is gone: create it with this turn
                create, expected = state.new_chat is not None, 0
            except (Throttled, StoreUnavailable) as exc:  # transient (after the client's retries): try again
                problem = exc.message
        return problem
    except MnemeError as exc:
        return exc.message


def _write_turn(session: RunSession, messages: list[ChatMessage], *, create: bool, expected: int) -> StoredTurn:
    chats, run, new_chat = session.deps.chats, session.run, session.state.new_chat
    if create and new_chat is not None:
        chats.create_chat(Chat.model_validate({**new_chat, "messages": messages}))
        return StoredTurn(0, len(messages), True)
    chats.append_messages(run.user_id, run.chat_id or "", messages, expected_count=expected)
    return StoredTurn(expected, len(messages), False)


def _stored_earlier(session: RunSession, chat: Chat | None) -> bool:
    """Whether an earlier attempt of this step stored the turn; it is this step's turn while it is the chat's
    last (then it is the one to take back)."""
    run_id = session.run.run_id
    mine = sum(m.run_id == run_id for m in chat.messages) if chat is not None else 0
    if chat is None or not mine:
        return False
    if all(m.run_id == run_id for m in chat.messages[-mine:]):
        first = chat.message_count - mine
        session.ending.turn = StoredTurn(first, mine, first == 0 and session.state.new_chat is not None)
    return True


def take_back_turn(session: RunSession) -> None:
    """The step stored its chat turn, and then the run did not succeed with it — cancelled before the commit,
    or the step or its commit crashed and the run is failed: the turn goes too, unless the chat has moved on
    since (then it stays, and a log line says so)."""
    turn = session.ending.turn
    if turn is None:
        return
    run = session.run
    session.ending.turn = None
    try:
        taken = session.deps.chats.take_back(
            run.user_id, run.chat_id or "", first=turn.first, count=turn.count, created=turn.created
        )
    except MnemeError:
        taken = False
    if not taken:
        observability.logger().warning(
            "the chat turn of a run that did not succeed could not be taken back", run_id=run.run_id
        )


# ---------------------------------------------------------------------------------------------- 2. the run
def commit(session: RunSession, outcome: Outcome, *, create: bool) -> list[RunEvent]:
    """The run, its events, requests and checkpoint in one commit; the stored run replaces the step's."""
    deps, run, state = session.deps, session.run, session.state
    state.persisted = True
    run.updated_at = deps.clock.now()
    run.lease_until = lease_until(deps, run.updated_at)
    observability.report_step(run, outcome, session.recorder.pending_events())
    events, requests = session.recorder.take()
    if outcome != "done" and state.initialized and state.config is None:
        state.config = pinned_config.pin(session.config)  # what every later step of the run runs
    checkpoint = state.model_dump(mode="json") if outcome != "done" else None
    session.writes.run = deps.runs.commit(run, create=create, events=events, requests=requests, checkpoint=checkpoint)
    return events


def yield_to_cancel(session: RunSession, *, create: bool) -> Run | None:
    """The commit met a stale version: when a cancel came meanwhile, nothing of this step is kept (its turn is
    taken back) and the cancelled run is the answer; None when it was not a cancel (the conflict stands)."""
    stored = None if create else cancel.yield_to_cancel(session.deps, session.run, session.state)
    if stored is not None:
        take_back_turn(session)
    return stored


def end_unstarted_children(session: RunSession) -> None:
    """A step that ends its run (``done``) starts none of the children it created and still waits for — a run
    aborted by its tool-call limit after starting delegations left them ``queued`` until the sweeper, holding
    the tree's active-children count: they are cancelled now."""
    run = session.run
    reason = f"not started: run {run.run_id} ended {run.status.value}"
    cancel.end_unstarted(session.deps, run, session.state.waiting_children, reason=reason)


# ---------------------------------------------------------------------------------------------- 3. the queue
def queue_jobs(session: RunSession) -> list[Future[list[str]]]:
    """The auto-write jobs, queued in parallel (each answers its warnings)."""
    jobs = session.ending.jobs
    return [parallel.submit(_enqueue, session, jobs)] if jobs else []


def drop_jobs(session: RunSession) -> None:
    """A run that failed at its commit queues nothing."""
    session.ending.jobs = []


def _enqueue(session: RunSession, jobs: Sequence[MemoryWriteJob]) -> list[str]:
    try:
        session.deps.queue.enqueue(jobs)
    except QueueUnavailable as exc:
        return _keep_for_redrive(session, jobs, exc)
    return []


def _keep_for_redrive(session: RunSession, jobs: Sequence[MemoryWriteJob], exc: QueueUnavailable) -> list[str]:
    """The queue refused the jobs: keep them in the run's outbox; the redrive queues them later."""
    run = session.run
    at = session.deps.clock.now().isoformat()
    try:
        session.deps.runs.put_outbox(run.run_id, [asdict(job) for job in jobs], at=at)
    except MnemeError as store_error:
        return [f"memory writes lost: the queue ({exc.message}) and the outbox ({store_error.message}) both failed"]
    return [f"memory writes kept for the redrive: the queue refused them ({exc.message})"]


# ---------------------------------------------------------------------------------------------- 4. after it
def publish(session: RunSession, events: list[RunEvent], queued: list[Future[list[str]]], *, create: bool) -> None:
    """The committed events to the run's followers, then the queue's warnings recorded and published. Nothing
    raised here escapes: the run is committed, its answer stands."""
    deps, run = session.deps, session.run
    session.recorder.run = run
    try:
        if not create:  # a run this commit created has no follower yet (its id was known to nobody)
            live.publish(deps, run, events)
        for warning in (message for write in queued for message in _result(write)):
            session.recorder.warning(warning)
        if not create:
            live.publish(deps, run, session.recorder.pending_events())
        session.recorder.flush()
    except Exception:  # the run is committed: its answer stands
        observability.logger().exception("writing after the step's commit failed", run_id=run.run_id)


def _result(write: Future[list[str]]) -> list[str]:
    try:
        return write.result()
    except Exception as exc:
        observability.logger().exception("a write beside the step's commit failed")
        return [f"a write beside the run's commit failed: {type(exc).__name__}"]
