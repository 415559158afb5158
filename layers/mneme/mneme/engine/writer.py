"""The memory writer (SQS consumer, SPEC §1, §5.5): batch embedding + bulk indexing, partial failures.

A job's document id is its deterministic ``job_id`` and identical content in a namespace is refreshed, so a
redelivered message never duplicates a memory. Only the items that failed are reported back to SQS.

A job of a user whose data was erased (the privacy ledger's tombstone) is dropped when it was queued before
the erasure finished: a write still in the queue, or redelivered later, never brings erased data back. When
the tombstones cannot be read, the batch is retried rather than written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mneme import observability
from mneme.engine import memory_ops
from mneme.engine.audit import AuditScope, AuditTrail
from mneme.engine.deps import Deps
from mneme.errors import MnemeError
from mneme.memory.retention import MemoryRetention, memory_retention
from mneme.models.privacy import ErasureState
from mneme.ports import AuditLog, Clock, Embedder, MemoryStore, MemoryWriteJob
from mneme.privacy_ports import PrivacyLedger


@dataclass(frozen=True)
class WriterPorts:
    store: MemoryStore | None
    embedder: Embedder | None
    audit: AuditLog
    clock: Clock
    retention: MemoryRetention = field(default_factory=MemoryRetention)
    ledger: PrivacyLedger | None = None  # the erasure tombstones (None: no erasure is ever checked)

    @classmethod
    def of(cls, deps: Deps) -> WriterPorts:
        """The writer's ports out of a full composition (local mode drains its queue in-process)."""
        return cls(
            deps.memory, deps.embedder, deps.audit, deps.clock, memory_retention(deps.settings), deps.privacy_ledger
        )


def parse_job(body: str) -> MemoryWriteJob:
    data: dict[str, Any] = json.loads(body)
    return MemoryWriteJob(**data)


def write_batch(ports: WriterPorts, records: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """Process SQS records; answer ``{"batchItemFailures": [...]}`` with the ids of the failed messages."""
    failures: list[str] = []
    jobs: list[tuple[str, MemoryWriteJob]] = []
    for record in records:
        try:
            jobs.append((record["messageId"], parse_job(record["body"])))
        except (KeyError, TypeError, ValueError):
            failures.append(str(record.get("messageId", "")))
    try:
        jobs = _not_erased(ports, jobs)
    except MnemeError:  # the tombstones could not be read: retried later, never written blind
        failures += [message_id for message_id, _ in jobs]
        jobs = []
    if jobs:
        failures += _write(ports, jobs)
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failures if message_id]}


def _document(ports: WriterPorts, job: MemoryWriteJob) -> Any:
    return memory_ops.new_document(
        job.job_id,
        job.namespace,
        job.owner_user_id,
        job.content,
        clock=ports.clock,
        tags=job.tags,
        metadata=job.metadata,
        derived_from=job.derived_from,
        ttl_seconds=job.ttl_seconds,
        retention=ports.retention,
    )


def _writers(job: MemoryWriteJob) -> set[str]:
    return {user for user in (job.owner_user_id, str(job.metadata.get("user_id") or "")) if user}


def _erased(job: MemoryWriteJob, erasure: ErasureState) -> bool:
    """Queued before the erasure finished (or while it runs, or at an unknown time): its data is erased."""
    queued = _queued_at(job)
    if queued is not None and queued.tzinfo is None:
        queued = queued.replace(tzinfo=UTC)  # a time without zone is UTC (as every time mneme writes)
    return erasure.finished_at is None or queued is None or queued <= erasure.finished_at


def _not_erased(ports: WriterPorts, jobs: list[tuple[str, MemoryWriteJob]]) -> list[tuple[str, MemoryWriteJob]]:
    """The jobs to write: those of erased users are dropped (and so deleted from the queue)."""
    if ports.ledger is None or not jobs:
        return jobs
    erasures = ports.ledger.erasures(sorted({user for _, job in jobs for user in _writers(job)}))
    kept = []
    for message_id, job in jobs:
        if any(user in erasures and _erased(job, erasures[user]) for user in _writers(job)):
            observability.logger().warning("dropped a memory write of an erased user", job_id=job.job_id)
            continue
        kept.append((message_id, job))
    return kept


def _write(ports: WriterPorts, jobs: list[tuple[str, MemoryWriteJob]]) -> list[str]:
    if ports.store is None or ports.embedder is None:
        return [message_id for message_id, _ in jobs]  # stays queued (then the DLQ), never dropped
    documents = [_document(ports, job) for _, job in jobs]
    try:
        vectors = ports.embedder.embed([doc.content for doc in documents])
        ports.store.put(list(zip(documents, vectors, strict=True)))
        written = jobs
        failed: list[str] = []
    except MnemeError:
        written, failed = _one_by_one(ports, jobs)
    try:
        _audit(ports, [job for _, job in written])
    except MnemeError:
        return failed + [message_id for message_id, _ in written]  # retried: the store refreshes, no duplicate
    return failed


def _one_by_one(
    ports: WriterPorts, jobs: list[tuple[str, MemoryWriteJob]]
) -> tuple[list[tuple[str, MemoryWriteJob]], list[str]]:
    assert ports.store is not None and ports.embedder is not None
    written: list[tuple[str, MemoryWriteJob]] = []
    failed: list[str] = []
    for message_id, job in jobs:
        try:
            document = _document(ports, job)
            ports.store.put([(document, ports.embedder.embed([job.content])[0])])
            written.append((message_id, job))
        except MnemeError:
            failed.append(message_id)
    return written, failed


def _audit(ports: WriterPorts, jobs: list[MemoryWriteJob]) -> None:
    """One ``write`` record per job, keyed by the job and timed when the run queued it: a redelivered job
    builds the same record, stored once."""
    records = []
    for job in jobs:
        meta = job.metadata
        scope = AuditScope(
            user_id=str(meta.get("user_id") or job.owner_user_id),
            run_id=meta.get("run_id"),
            root_run_id=meta.get("root_run_id"),
            agent_id=meta.get("agent_id"),
            task_id=meta.get("task_id"),
            depth=int(meta.get("depth") or 0),
        )
        trail = AuditTrail(scope, key=job.job_id, clock=ports.clock, at=_queued_at(job))
        records += trail.records(
            "write", [job.namespace], via="auto_write", source=meta.get("source"), job_id=job.job_id
        )
    if records:
        ports.audit.append(records)


def _queued_at(job: MemoryWriteJob) -> datetime | None:
    """When the run queued the job (its audit time, the same for every delivery)."""
    value = job.metadata.get("queued_at")
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
