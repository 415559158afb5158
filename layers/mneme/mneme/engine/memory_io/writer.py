"""The memory writer (SQS consumer, SPEC §1, §5.5): embedding, consolidation, extraction, partial failures.

A job's document id is its deterministic ``job_id`` and identical content in a namespace is refreshed, so a
redelivered message never duplicates a memory. Only the items that failed are reported back to SQS.

* ``raw`` jobs first: long content is chunked to the embedding model's size, the batch's texts are embedded in
  one call, every one-entry document is consolidated (``engine.consolidate``: refresh a near-duplicate,
  supersede an updated fact; the chunks of long content are stored as they are) and audited with its decision.
* ``extract`` jobs after them (``engine.extract_job``), each on its own: a failed extraction is retried or
  dead-lettered alone; the run's raw entries are already stored.

A job of a user whose data was erased (the privacy ledger's tombstone) is dropped when it was queued before
the erasure finished: a write still in the queue, or redelivered later, never brings erased data back. When
the tombstones cannot be read, the batch is retried rather than written. They are read again after the write
(``erased_writes``): what a job wrote while its user's erasure ran is deleted for good.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mneme.engine.memory_io import extract_job
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.consolidate import Decision, Recent, consolidate
from mneme.engine.memory_io.entries import chunked
from mneme.engine.memory_io.erased_writes import not_erased, undo_erased
from mneme.engine.memory_io.writer_ports import WriterPorts, audit_decisions
from mneme.errors import MnemeError
from mneme.memory.embedding_limits import EmbeddingLimit, limit_for
from mneme.memory.speakers import spoken
from mneme.models.memory import Authority, MemoryDocument
from mneme.ports.memory import MemoryStore, MemoryWriteJob
from mneme.ports.models import Embedder


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
        jobs = not_erased(ports, jobs)
    except MnemeError:  # the tombstones could not be read: retried later, never written blind
        failures += [message_id for message_id, _ in jobs]
        jobs = []
    recent = Recent()  # what this batch wrote: consolidation sees it even where the store does not yet
    raw = [(message_id, job) for message_id, job in jobs if job.kind != "extract"]
    if raw:
        failures += _write(ports, raw, recent)
    for message_id, job in jobs:
        if job.kind == "extract" and not extract_job.run(ports, job, recent):
            failures.append(message_id)
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failures if message_id]}


def _document(ports: WriterPorts, job: MemoryWriteJob) -> Any:
    source = job.metadata.get("source")
    authority: Authority | None = None
    if source in ("run_input", "run_output"):
        authority = "auto_write"
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
        authority=authority,
    )


def _write(ports: WriterPorts, jobs: list[tuple[str, MemoryWriteJob]], recent: Recent) -> list[str]:
    """Store each job's documents (consolidated); the ids of the failed messages. The batch's texts are embedded
    in one call (one job's bad text is then retried alone, so it fails only its own message)."""
    if ports.store is None or ports.embedder is None:
        return [message_id for message_id, _ in jobs]  # stays queued (then the DLQ), never dropped
    limit = limit_for(ports.embedder.model_id)
    failed: list[str] = []
    built: list[tuple[str, MemoryWriteJob, list[MemoryDocument]]] = []
    for message_id, job in jobs:
        try:
            built.append((message_id, job, chunked(_document(ports, job), limit)))
        except MnemeError:
            failed.append(message_id)
    vectors = _embedded(ports.embedder, [documents for _, _, documents in built])
    written: list[tuple[MemoryWriteJob, Sequence[Decision]]] = []
    for (message_id, job, documents), job_vectors in zip(built, vectors, strict=True):
        try:
            if isinstance(job_vectors, MnemeError):
                raise job_vectors
            written.append((job, _stored(ports, ports.store, job, documents, job_vectors, limit, recent)))
        except MnemeError:
            failed.append(message_id)
    try:
        written, retried = undo_erased(ports, written)  # an erasure that ran meanwhile: nothing of it stays
        failed += [m for m, job in jobs if job in retried]
        audit_decisions(ports, written)
    except MnemeError:
        ids = {job.job_id for job, _ in written}
        return failed + [m for m, job in jobs if job.job_id in ids]  # retried: the store refreshes, no duplicate
    return failed


def _embedded(embedder: Embedder, groups: list[list[MemoryDocument]]) -> list[list[list[float]] | MnemeError]:
    """Each group's vectors from one embedding call for all; if it fails, each group on its own."""
    texts = [spoken(doc.content) for group in groups for doc in group]
    try:
        flat = embedder.embed(texts) if texts else []
    except MnemeError:
        return [_embed_alone(embedder, group) for group in groups]
    out: list[list[list[float]] | MnemeError] = []
    for group in groups:
        out.append(flat[: len(group)])
        flat = flat[len(group) :]
    return out


def _embed_alone(embedder: Embedder, group: list[MemoryDocument]) -> list[list[float]] | MnemeError:
    try:
        return embedder.embed([spoken(doc.content) for doc in group])
    except MnemeError as exc:
        return exc


def _stored(
    ports: WriterPorts,
    store: MemoryStore,
    job: MemoryWriteJob,
    documents: list[MemoryDocument],
    vectors: list[list[float]],
    limit: EmbeddingLimit,
    recent: Recent,
) -> list[Decision]:
    """One entry is consolidated; the chunks of long content are stored as they are — a chunk refreshed into
    another entry would make that entry derived from this document, deleted with it (issue 31.6)."""
    if len(documents) > 1:
        store.put(list(zip(documents, vectors, strict=True)))
        return [Decision("write", "new", doc.id) for doc in documents]
    threshold = job.duplicate_threshold or limit.duplicate_threshold
    return [consolidate(store, documents[0], vectors[0], threshold=threshold, now=ports.clock.now(), recent=recent)]


__all__ = ["WriterPorts", "audit_decisions", "parse_job", "write_batch"]
