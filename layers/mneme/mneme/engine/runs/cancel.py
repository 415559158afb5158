"""Cancel a run and every unfinished run below it (issue 15.3).

``POST /v1/runs/{id}/cancel`` by the run's owner:

1. every unfinished run of the subtree is marked ``cancelled`` — its item updated on its version, with a
   ``cancelled`` and a ``completed`` event in the same commit — and audited (``cancel``); its pending
   approvals are void (their answers are refused from now on); its ``tree_usage`` takes in the sub-runs it
   had not collected (no parent will now: their model calls were made and paid, SPEC §2);
2. then every execution still running one of them is stopped (Step Functions ``StopExecution``; the ARN is
   recorded on the run by its first step, a root's is also derived from its run id).

A step that is mid-flight meanwhile ends without committing: its final commit is conditional on the run's
version, meets the cancel, and yields (:func:`yield_to_cancel`) — no answer, no chat turn, no auto-write.
The call is idempotent: cancelling a cancelled run answers it again (and stops what may still run); a run
already final in another state is a 409.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mneme.engine.audit import AuditScope, AuditTrail
from mneme.engine.deps import Deps
from mneme.engine.runs import live
from mneme.engine.runs.approvals import TOKEN_MARK
from mneme.engine.runs.owner import own_run
from mneme.engine.runs.recorder import Recorder
from mneme.engine.runs.state import LoopState, load_state
from mneme.errors import Conflict, MnemeError
from mneme.models.run import Run, RunStatus, Usage
from mneme.models.user import Caller

_ATTEMPTS = 8


def cancel_run(deps: Deps, caller: Caller, run_id: str) -> dict[str, Any]:
    """Cancel the caller's run and its unfinished descendants; ``{run_id, status, cancelled, stopped}``."""
    run = own_run(deps, caller, run_id)
    if run.status.finished and run.status is not RunStatus.CANCELLED:
        raise Conflict(f"run {run_id!r} already ended as {run.status.value}; only an unfinished run can be cancelled")
    cancelled, stopped, head = _cancel_tree(deps, run, by=caller.user_id, why="by its owner")
    if head.status is not RunStatus.CANCELLED:  # it finished in another way while we cancelled
        raise Conflict(f"run {run_id!r} ended as {head.status.value} before the cancel took effect")
    return {
        "run_id": run_id,
        "status": head.status.value,
        "cancelled": [r.run_id for r in cancelled],
        "stopped_executions": stopped,
    }


def cancel_all_of(deps: Deps, user_id: str, *, by: str, why: str) -> int:
    """Cancel every unfinished run of ``user_id`` with its unfinished descendants, as a cancel by ``by`` does, and
    stop their executions (an erasure: nothing of theirs runs on, waits for a person or writes again); answers how
    many runs were cancelled."""
    count = 0
    for listed in deps.runs.list_unfinished():  # an index: re-read before acting
        run = deps.runs.get_run(listed.run_id) if listed.user_id == user_id else None
        if run is not None and not run.status.finished:
            count += len(_cancel_tree(deps, run, by=by, why=why)[0])
    return count


def _cancel_tree(deps: Deps, run: Run, *, by: str, why: str) -> tuple[list[Run], int, Run]:
    """Cancel ``run`` and its unfinished descendants, stop their executions and end their approval waits; the runs
    cancelled, the executions stopped, and ``run`` as it is stored now."""
    run_id = run.run_id
    subtree = _subtree(deps, run)
    cancelled: list[Run] = []
    for member in subtree:
        reason = f"cancelled {why}" if member.run_id == run_id else f"cancelled with run {run_id}"
        stored = _cancel_one(deps, member.run_id, by=by, reason=reason, origin=run_id)
        if stored is not None:
            cancelled.append(stored)
            if member.run_id != run_id:  # no parent will collect it: it leaves the tree's unfinished count
                _release(deps, stored)
    final = {r.run_id: r for r in (deps.runs.get_run(m.run_id) for m in subtree) if r is not None}
    stopped = sum(
        1
        for r in final.values()
        if r.status is RunStatus.CANCELLED and _stop(deps, r, f"run {run_id} was cancelled {why}")
    )
    for member in cancelled:  # a wait for a person ends even where no execution could be stopped
        _end_approval_wait(deps, member.run_id)
    return cancelled, stopped, final.get(run_id, run)


def _subtree(deps: Deps, run: Run) -> list[Run]:
    """The run and every descendant (finished ones too: a failed child may have left children running),
    parents before children."""
    found, frontier, seen = [run], list(run.children), {run.run_id}
    while frontier:
        child_id = frontier.pop(0)
        if child_id in seen:
            continue
        seen.add(child_id)
        child = deps.runs.get_run(child_id)
        if child is not None:
            found.append(child)
            frontier += child.children
    return found


def _cancel_one(deps: Deps, run_id: str, *, by: str, reason: str, origin: str) -> Run | None:
    """Mark one run cancelled (on its version, retried when a step commits meanwhile); None when it was
    already final."""
    for _ in range(_ATTEMPTS):
        run = deps.runs.get_run(run_id)
        if run is None or run.status.finished:
            return None
        raw = deps.runs.load_checkpoint(run_id)
        state = load_state(raw) if raw else LoopState(user_text=run.input)
        voided = [p.call_id for p in state.waiting_approvals]
        run.tree_usage = run.tree_usage + _uncollected(deps, state.waiting_children)
        recorder = Recorder(deps, run, state)
        run.status, run.error, run.updated_at = RunStatus.CANCELLED, reason, deps.clock.now()
        recorder.event("cancelled", by=by, reason=reason, voided_calls=voided)
        recorder.event(
            "completed", status=run.status.value, usage=run.usage.model_dump(), tree_usage=run.tree_usage.model_dump()
        )
        events, _ = recorder.take()
        try:
            stored = deps.runs.commit(run, events=events, checkpoint=state.model_dump(mode="json"))
        except Conflict:
            continue  # a step committed meanwhile: read it again
        trail = AuditTrail(AuditScope.of_run(stored), key=f"{run_id}#cancel", clock=deps.clock)
        trail.write(deps.audit, "cancel", [None], by=by, reason=reason, cancelled_run=origin, voided_calls=voided)
        live.publish(deps, stored, events)
        return stored
    raise Conflict(f"run {run_id!r} kept changing while it was cancelled; try again")


def _uncollected(deps: Deps, child_ids: Iterable[str]) -> Usage:
    """What delegated runs no parent collected have used: each one's tree and, unless it was cancelled (which took
    them in), the runs it had not collected either."""
    total = Usage()
    for child_id in child_ids:
        child = deps.runs.get_run(child_id)
        if child is None:
            continue
        raw = None if child.status is RunStatus.CANCELLED else deps.runs.load_checkpoint(child_id)
        below = load_state(raw).waiting_children if raw else []
        total = total + child.tree_usage + _uncollected(deps, below)
    return total


def _stop(deps: Deps, run: Run, cause: str) -> bool:
    try:
        return deps.orchestrator.stop(run.run_id, execution_arn=run.execution_arn, depth=run.depth, cause=cause)
    except MnemeError:  # the run is cancelled; its execution ends at its next step (a retry stops it again)
        return False


def _end_approval_wait(deps: Deps, run_id: str) -> None:
    """Complete the approval task the run's execution waits on: it resumes, meets the cancelled run and ends
    (after a StopExecution the token is void and this does nothing)."""
    token = deps.runs.list_marks(run_id, TOKEN_MARK).get(TOKEN_MARK, {}).get("token")
    if token:
        try:
            deps.orchestrator.resume(str(token), {"run_id": run_id})
        except MnemeError:
            return


def yield_to_cancel(deps: Deps, run: Run, state: LoopState) -> Run | None:
    """A step's commit met a newer version: when the run was ended meanwhile (cancelled), the step yields —
    its children created in this step are cancelled too — and the stored run is returned; None otherwise."""
    stored = deps.runs.get_run(run.run_id)
    if stored is None or not stored.status.finished:
        return None
    created = [child_id for child_id in state.waiting_children if child_id not in stored.children]
    end_unstarted(deps, stored, created, reason=f"cancelled with run {run.run_id}")
    return stored


def end_unstarted(deps: Deps, run: Run, child_ids: Iterable[str], *, reason: str) -> None:
    """Cancel the children a step of ``run`` created that nothing will start (the step yielded to a cancel, or
    ended the run), each leaving the tree's unfinished count."""
    for child_id in child_ids:
        child = _cancel_one(deps, child_id, by=run.user_id, reason=reason, origin=run.run_id)
        if child is not None:
            _release(deps, child)


def _release(deps: Deps, run: Run) -> None:
    if run.budget is not None and run.depth > 0:
        deps.ledger.release_run(run.root_run_id)
