"""The privacy worker: exports and erasures continued asynchronously (the privacy function's SQS batches),
and the hourly purge of expired memory entries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mneme import observability
from mneme.engine.deps import Deps
from mneme.engine.privacy import erasure, export
from mneme.errors import MnemeError
from mneme.memory.entry_retention import memory_retention
from mneme.ports.privacy import PrivacyJob


def run_job(deps: Deps, job: PrivacyJob, *, budget_seconds: float) -> dict[str, Any]:
    """One job, within ``budget_seconds`` (an erasure queues what is left; an export is built whole)."""
    observability.bind(user_id=job.user_id, privacy_job=job.kind, job_id=job.job_id)
    if job.kind == "export":
        status = export.build_export(deps, job.user_id, job.job_id)
        return {"kind": job.kind, "job_id": job.job_id, "status": status.status if status else "gone"}
    state = erasure.continue_erasure(deps, job.user_id, job.job_id, deadline=deps.monotonic() + budget_seconds)
    return {"kind": job.kind, "job_id": job.job_id, "status": state.status if state else "gone"}


def parse_job(body: str) -> PrivacyJob:
    data = json.loads(body)
    if data.get("kind") not in ("export", "erasure"):
        raise ValueError(f"unknown privacy job {data.get('kind')!r}")
    return PrivacyJob(kind=data["kind"], user_id=str(data["user_id"]), job_id=str(data["job_id"]))


def handle_batch(deps: Deps, records: Sequence[dict[str, Any]], *, budget_seconds: float) -> dict[str, Any]:
    """An SQS batch of the privacy queue: a job that fails goes back to the queue (then its DLQ)."""
    failures: list[dict[str, str]] = []
    for record in records:
        message_id = str(record.get("messageId", ""))
        try:
            run_job(deps, parse_job(str(record.get("body", ""))), budget_seconds=budget_seconds)
        except (MnemeError, ValueError, KeyError, TypeError) as exc:
            observability.logger().warning("a privacy job failed; it is retried", error=str(exc), message_id=message_id)
            failures.append({"itemIdentifier": message_id})
    return {"batchItemFailures": failures}


def purge_memories(deps: Deps) -> dict[str, int]:
    """Delete for good the memory entries whose time has come (their TTL, or their class's retention)."""
    if deps.memory is None:
        return {"purged": 0}
    retention = memory_retention(deps.settings)
    now = deps.clock.now()
    return {"purged": deps.memory.purge_expired(now, retention.cutoffs(now))}
