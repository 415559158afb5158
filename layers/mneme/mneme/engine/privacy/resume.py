"""Privacy jobs a crash left unfinished (issue 31.7): handed to the privacy worker again.

An export is ``pending`` / ``running`` and an erasure ``running`` until the worker finishes it; the ledger
indexes those (:meth:`PrivacyLedger.open_jobs`). Both jobs are idempotent — an export is built again from
the start (a partial archive is overwritten), an erasure resumes after its last finished phase — so handing
one over twice costs time, never data.

* **Locally**, on start (:mod:`mneme_local.recovery`): nothing runs a job at that moment (the local queue
  runs each job in the request that queued it), so every open job is resumed at once.
* **On AWS**, by the scheduled sweep (every 5 minutes): SQS redelivers a job whose invocation crashed by
  itself (the privacy queue's visibility timeout, 5,400 s, three times, then its DLQ and alarm); the sweep
  resumes what that cannot — a job whose message went to the DLQ, or was never sent (the queue refused it) —
  once its record was last written more than :data:`RESUME_AFTER_SECONDS` ago. Each resumed job is marked
  written now, so the next sweep waits as long again.
"""

from __future__ import annotations

from datetime import timedelta

from mneme import observability
from mneme.engine.deps import Deps
from mneme.errors import MnemeError

#: an open job whose record nothing wrote for this long is resumed by the sweep (longer than SQS's own
#: redelivery of a crashed invocation's message: the privacy queue's visibility timeout, 5,400 s)
RESUME_AFTER_SECONDS = 2 * 3600


def resume_open_jobs(deps: Deps, *, idle_seconds: float = RESUME_AFTER_SECONDS) -> list[str]:
    """Hand every open job idle for ``idle_seconds`` to the privacy worker again; answers their ids. A job
    that fails again stays open (and is logged): the next resume tries it again."""
    if deps.privacy_jobs is None:
        return []
    cutoff = deps.clock.now() - timedelta(seconds=idle_seconds)
    resumed: list[str] = []
    for open_job in deps.privacy_ledger.open_jobs():
        job = open_job.job
        if open_job.touched_at > cutoff:
            continue
        deps.privacy_ledger.touch(job)  # first: the next sweep waits again even when this attempt fails
        try:
            deps.privacy_jobs.enqueue(job)
        except MnemeError as exc:
            observability.logger().warning(
                "an unfinished privacy job could not be resumed", kind=job.kind, job_id=job.job_id, error=exc.message
            )
            continue
        resumed.append(job.job_id)
    return resumed
