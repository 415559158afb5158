"""The step driver: how one step of a run ends, whatever happened in it (issue 12.1, 12.4).

:func:`settle` is the one place that turns what a step raised into the run's outcome; :func:`finish`
commits the step (the run, its events, requests and checkpoint in one commit) and hands a waiting run to the
state machine. An unexpected exception never leaves a run non-final, and nothing raised after a run is
final escapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from mneme import observability
from mneme.engine.runs import commit
from mneme.engine.runs.approvals import mark_failed
from mneme.engine.runs.outcome import fail
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.state import Outcome
from mneme.errors import (
    Conflict,
    MnemeError,
    ModelThrottled,
    ModelTimedOut,
    RunFailedUnexpectedly,
    StoreUnavailable,
    Throttled,
)
from mneme.models.run import Run
from mneme.records import Record

#: errors the state machine retries (its Retry names them); anything else fails the run with its reason
TRANSIENT: tuple[type[MnemeError], ...] = (ModelThrottled, StoreUnavailable, Throttled)
#: what the fast path answers by handing the run to the state machine (a model call out of its time too)
HAND_OFF: tuple[type[MnemeError], ...] = (*TRANSIENT, ModelTimedOut)
W = TypeVar("W")


class StepResult(Record):
    run: Run
    outcome: Outcome
    children: list[dict[str, Any]]

    def to_state(self) -> dict[str, Any]:
        """The small payload that travels in the state machine. ``child_run_id`` names the one child of a
        turn that delegates once (null otherwise): the machine starts it without a Map (one state
        transition less per hop) and needs no array index in a path for it."""
        only = self.children[0]["run_id"] if self.outcome == "delegate" and len(self.children) == 1 else None
        return {
            "run_id": self.run.run_id,
            "depth": self.run.depth,
            "outcome": self.outcome,
            "children": self.children,
            "child_run_id": only,
        }


def _failed(session: RunSession, exc: MnemeError) -> Outcome:
    fail(session, f"{type(exc).__name__}: {exc.message}")
    return "done"


def settle(
    session: RunSession, work: Callable[[], W], *, transient: Literal["hand_off", "raise", "fail"]
) -> W | Outcome:
    """The step driver: the one place that turns what a step raised into the run's outcome.

    A transient error (throttling, a store blip, a fast-path model call out of time) hands the run to the
    state machine (``hand_off``), is raised for the state machine's Retry (``raise``: the step is retried
    from its last checkpoint), or fails the run (``fail``). Any other mneme error fails the run with its
    reason. Anything else — a bug, or input nothing else refused — fails the run too, with an ``error``
    event, and is logged with its traceback; the fast path then answers 500 naming the run."""
    try:
        return work()
    except HAND_OFF as exc:
        if transient == "hand_off":
            session.recorder.warning(f"{type(exc).__name__}: {exc.message}; the run continues in the state machine")
            return "continue"
        if transient == "raise" and isinstance(exc, TRANSIENT):
            session.recorder.flush()
            raise  # the state machine retries the step with backoff, from the last checkpoint
        return _failed(session, exc)
    except MnemeError as exc:
        return _failed(session, exc)
    except Exception as exc:
        return _crashed(session, exc)


def _crashed(session: RunSession, exc: Exception) -> Outcome:
    reason = _printable(f"internal error: {type(exc).__name__}: {exc}")[:500]
    observability.logger().exception(
        "unexpected error in a run step", run_id=session.run.run_id, error_type=type(exc).__name__
    )
    session.ending.crash = reason
    commit.take_back_turn(session)  # a failed run leaves nothing in the chat
    fail(session, reason)
    return "done"


def _printable(text: str) -> str:
    """Text that every store can serialize (a lone surrogate from hostile input is escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def finish(session: RunSession, outcome: Outcome, *, hand_off: bool) -> StepResult:
    """Commit the step; if even that fails on something unexpected, commit the run failed without the
    step's buffered events. A crash on the fast path is answered as a 500 that names the (failed) run."""
    try:
        result = _conclude(session, outcome, hand_off=hand_off)
    except MnemeError:
        raise  # transient (the state machine retries; the sweeper ends a fast-path run whose client gave up)
    except Exception as exc:
        result = _conclude_crashed(session, exc)
    crash = session.ending.crash
    if crash is not None and session.time_budget is not None and session.time_budget.fast_path:
        raise RunFailedUnexpectedly(result.run.run_id, "the run failed on an unexpected error: " + crash)
    return result


def _conclude_crashed(session: RunSession, exc: Exception) -> StepResult:
    observability.logger().exception("the step's commit failed", run_id=session.run.run_id)
    session.recorder.take()  # what could not be stored is dropped; the failure itself is recorded
    commit.drop_jobs(session)
    crash = session.ending.crash = _printable(f"internal error while storing the step: {type(exc).__name__}: {exc}")[
        :500
    ]
    commit.take_back_turn(session)  # a failed run leaves nothing in the chat
    fail(session, crash)
    return _conclude(session, "done", hand_off=False)


def _conclude(session: RunSession, outcome: Outcome, *, hand_off: bool) -> StepResult:
    """End the step in :mod:`mneme.engine.runs.commit`'s order (the turn was stored by ``outcome.succeed``):
    the run with its events in one commit, the auto-write queue beside it, the followers told; then a waiting
    run goes to the state machine.

    The fast path queues beside the commit (one round trip; nobody could address the run for a cancel before
    this answer); a state machine step queues once its commit succeeded: a cancel that came meanwhile made the
    commit's version stale, and the step yields, keeping nothing (its turn is taken back)."""
    queued = commit.queue_jobs(session) if hand_off else []
    create = not session.state.persisted
    try:
        events = commit.commit(session, outcome, create=create)
    except Conflict:
        cancelled = commit.yield_to_cancel(session, create=create)
        if cancelled is None:
            raise
        return StepResult(cancelled, "done", [])
    if not hand_off:
        queued = commit.queue_jobs(session)
    commit.publish(session, events, queued, create=create)
    if outcome == "done":
        commit.end_unstarted_children(session)
    if hand_off and outcome != "done":
        return _hand_off(session, outcome)
    return StepResult(session.run, outcome, session.writes.children)


def _hand_off(session: RunSession, outcome: Outcome) -> StepResult:
    """A waiting run goes to the state machine; if it cannot start, nothing would continue it: the answer is
    the run, failed with the reason (and the children it created that nothing will start)."""
    deps, run = session.deps, session.run
    try:
        deps.orchestrator.start(run.run_id, depth=run.depth)
    except MnemeError as exc:
        reason = {"Error": type(exc).__name__, "Cause": exc.message}
        for child in session.writes.children:
            mark_failed(deps, child["run_id"], reason)
        mark_failed(deps, run.run_id, reason)
        failed = deps.runs.get_run(run.run_id)
        return StepResult(failed or run, "done", [])
    return StepResult(run, outcome, session.writes.children)
