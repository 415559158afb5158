"""The memory writer and the erasure tombstones: a job of an erased user writes nothing that stays.

A job is checked twice. Before it is written, a job of a user whose erasure runs or finished after the job was
queued is dropped. After it is written, the tombstones are read again: an erasure that started while the job
was being embedded or extracted (after the first check) may have listed the user's entries before this write
landed — even finished — so the entries the job wrote or refreshed are deleted for good and it is not audited.
A tombstone is written before an erasure deletes anything: when the second read finds none, the erasure's own
listings (later) see the write. When the second read fails, the job's new entries are removed and it is
retried (its first check then decides), never left written blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC
from typing import TypeVar

from mneme import observability
from mneme.engine.memory_io.consolidate import Decision
from mneme.engine.memory_io.writer_ports import WriterPorts, queued_at
from mneme.errors import MnemeError
from mneme.models.privacy import ErasureState
from mneme.ports.memory import MemoryWriteJob

T = TypeVar("T")


def writers(job: MemoryWriteJob) -> set[str]:
    return {user for user in (job.owner_user_id, str(job.metadata.get("user_id") or "")) if user}


def erased(job: MemoryWriteJob, erasure: ErasureState) -> bool:
    """Queued before the erasure finished (or while it runs, or at an unknown time): its data is erased."""
    queued = queued_at(job)
    if queued is not None and queued.tzinfo is None:
        queued = queued.replace(tzinfo=UTC)  # a time without zone is UTC (as every time mneme writes)
    return erasure.finished_at is None or queued is None or queued <= erasure.finished_at


def not_erased(ports: WriterPorts, jobs: Sequence[tuple[T, MemoryWriteJob]]) -> list[tuple[T, MemoryWriteJob]]:
    """The jobs to write: those of erased users are dropped. Raises when the tombstones cannot be read."""
    if ports.ledger is None or not jobs:
        return list(jobs)
    erasures = ports.ledger.erasures(sorted({user for _, job in jobs for user in writers(job)}))
    kept = []
    for key, job in jobs:
        if any(user in erasures and erased(job, erasures[user]) for user in writers(job)):
            observability.logger().warning("dropped a memory write of an erased user", job_id=job.job_id)
            continue
        kept.append((key, job))
    return kept


Written = tuple[MemoryWriteJob, Sequence[Decision]]


def undo_erased(ports: WriterPorts, written: Sequence[Written]) -> tuple[list[Written], list[MemoryWriteJob]]:
    """After the write: the jobs still to audit, and those to retry (the tombstones could not be read); the
    entries of a job whose user was erased meanwhile are deleted for good."""
    if ports.ledger is None or ports.store is None or not written:
        return list(written), []
    try:
        kept = not_erased(ports, [(index, job) for index, (job, _) in enumerate(written)])
    except MnemeError:  # unknown: undo what is new and retry, the next delivery's first check decides
        ports.store.hard_delete([d.doc_id for _, decisions in written for d in decisions if d.action == "write"])
        return [], [job for job, _ in written]
    left = {index for index, _ in kept}
    gone = [
        doc_id
        for index, (_, decisions) in enumerate(written)
        if index not in left
        for decision in decisions
        for doc_id in (decision.doc_id, *decision.superseded)
    ]
    if gone:
        ports.store.hard_delete(gone)
    return [written[index] for index in sorted(left)], []
