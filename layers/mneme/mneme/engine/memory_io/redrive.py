"""The redrive: queue the memory-write jobs that runs kept in their outbox when the queue refused them.

Run by the scheduled ``{"action": "redrive"}`` event (and ``make redrive`` locally). A job is queued again
with its deterministic id, so a redrive that repeats never duplicates a memory. For messages that reached
the dead-letter queue, move them back with SQS's own redrive (see docs/reliability.md).
"""

from __future__ import annotations

from mneme.engine.deps import Deps
from mneme.errors import MnemeError
from mneme.ports.memory import MemoryWriteJob
from mneme.records import Record


class RedriveReport(Record):
    runs: int
    jobs: int
    remaining: int

    def to_dict(self) -> dict[str, int]:
        return {"runs": self.runs, "jobs": self.jobs, "remaining": self.remaining}


def redrive_outbox(deps: Deps, *, limit: int = 100) -> RedriveReport:
    runs = jobs = remaining = 0
    for run_id, raw_jobs in deps.runs.list_outbox(limit):
        try:
            deps.queue.enqueue([MemoryWriteJob(**job) for job in raw_jobs])
            deps.runs.delete_outbox(run_id)
        except MnemeError:
            remaining += 1
            continue
        runs += 1
        jobs += len(raw_jobs)
    return RedriveReport(runs, jobs, remaining)
