"""The sweeper (issue 12.1): fail the runs nothing runs any more.

A run records a lease (``Run.lease_until``): every commit of one of its steps renews it to the function
timeout plus a grace period, because no step outlives its invocation. A ``queued`` or ``running`` run whose
lease is over, and that no execution runs (its own recorded execution, the one the hand-off started for a
root run, or — for a child that has not started yet — its parent's, while the parent waits for it), was
left behind by a crashed or timed-out invocation, or a hand-off whose execution never started: it is failed
as ``interrupted``, with the reason and an ``error`` event. Runs waiting for an approval are left alone
(their wait has its own timeout in the state machine).

Run by the scheduled ``{"action": "sweep"}`` event on AWS, and periodically by the local server.
"""

from __future__ import annotations

from datetime import datetime

from mneme.engine.deps import Deps
from mneme.engine.runs.approvals import mark_failed
from mneme.engine.runs.commit import lease_until
from mneme.errors import Conflict, MnemeError
from mneme.models.run import Run, RunStatus
from mneme.records import Record

INTERRUPTED = {
    "Error": "Interrupted",
    "Cause": "the run's lease expired and no execution runs it (its invocation ended without finishing it)",
}


class SweepReport(Record):
    unfinished: int
    failed: list[str]
    unknown: int  # runs whose execution could not be described (left for the next sweep)

    def to_dict(self) -> dict[str, int | list[str]]:
        return {"unfinished": self.unfinished, "failed": self.failed, "unknown": self.unknown}


def expired(deps: Deps, run: Run, now: datetime) -> bool:
    """Queued or running, and past its lease (a run stored before leases existed: its last update plus the
    same lease)."""
    if run.status not in (RunStatus.QUEUED, RunStatus.RUNNING):
        return False
    return (run.lease_until or lease_until(deps, run.updated_at)) < now


class _Liveness:
    """Which unfinished runs an execution still runs (each execution described at most once)."""

    def __init__(self, deps: Deps, unfinished: dict[str, Run]) -> None:
        self._deps = deps
        self._unfinished = unfinished
        self._known: dict[str, bool] = {}

    def alive(self, run: Run, seen: frozenset[str] = frozenset()) -> bool:
        if run.run_id not in self._known:
            self._known[run.run_id] = self._decide(run, seen | {run.run_id})
        return self._known[run.run_id]

    def _decide(self, run: Run, seen: frozenset[str]) -> bool:
        if run.execution_arn is not None or run.parent_run_id is None:
            return self._deps.orchestrator.is_running(run.run_id, run.execution_arn)
        parent = self._unfinished.get(run.parent_run_id)  # a child not started yet lives while its parent does
        return parent is not None and parent.run_id not in seen and self.alive(parent, seen)


def sweep(deps: Deps) -> SweepReport:
    """Fail every unfinished run past its lease that no execution runs; answers what was done."""
    now = deps.clock.now()
    unfinished = {run.run_id: run for run in deps.runs.list_unfinished()}
    liveness = _Liveness(deps, unfinished)
    failed: list[str] = []
    unknown = 0
    for run in unfinished.values():
        if not expired(deps, run, now):
            continue
        try:
            if liveness.alive(run):
                continue
        except MnemeError:
            unknown += 1
            continue
        current = deps.runs.get_run(run.run_id)  # the index lags: act only on what the run item says now
        if current is None or not expired(deps, current, now):
            continue
        try:
            mark_failed(deps, run.run_id, INTERRUPTED)
        except Conflict:  # a step committed meanwhile: the run is alive after all
            continue
        failed.append(run.run_id)
    return SweepReport(len(unfinished), failed, unknown)
