"""Memory tool writes and deletes with their audit records (SPEC §5.4, §9), and the chunked documents they write."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from mneme import telemetry
from mneme.engine.audit import AuditTrail, cascade_records
from mneme.engine.memory_io import erasure_guard
from mneme.engine.memory_io.ops import MemoryPorts, RecordFactory, append_audit
from mneme.engine.memory_io.revisions import acting, created
from mneme.errors import MemoryUnavailable, NotFound
from mneme.memory.embedding_limits import EmbeddingLimit, limit_for
from mneme.memory.entry_retention import is_expired
from mneme.memory.speakers import spoken
from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.memory import MemoryDocument


def audited_write(
    ports: MemoryPorts,
    records: RecordFactory,
    action: AuditAction,
    namespace: str,
    operation: Callable[[], Any],
    **detail: Any,
) -> Any:
    """Audit a memory update, then make it: the audit failing fails the call with nothing changed (fail closed),
    so no change is ever left without its record (a change that fails after its record leaves the record of
    the attempt, and the caller's error)."""
    with _span(action, namespace, detail), _by_tool(detail, None, update=action == "update"):
        append_audit(ports.audit, records(action, [namespace], **detail))
        return operation()


def audited_create(
    ports: MemoryPorts, records: RecordFactory, namespace: str, documents: Sequence[MemoryDocument], **detail: Any
) -> list[str]:
    """Store new ``documents`` (one entry, chunked) and audit the write (:func:`write_audited`)."""
    with _span("write", namespace, detail) as span:
        ids = write_audited(ports, documents, records("write", [namespace], **detail))
        span.set_many({"mneme.memory.ids": ids})
        return ids


def _span(action: AuditAction, namespace: str, detail: dict[str, Any]) -> AbstractContextManager[telemetry.SpanHandle]:
    attributes = {
        "mneme.memory.action": action,
        "mneme.memory.namespace": namespace,
        "mneme.memory.via": detail.get("via"),
    }
    return telemetry.span(f"memory.{action}", attributes)


def audited_delete(
    ports: MemoryPorts,
    trail: AuditTrail,
    deleter: str,
    target: MemoryDocument,
    **detail: Any,
) -> list[str]:
    """Audit, then soft-delete ``target`` (cascading to the entries derived from it): the delete under the
    deleter, and each cascaded entry's under its owner (fail closed: an audit failure fails the call with nothing
    deleted)."""
    store, _ = ports.require()
    cascaded = store.entries([i for i in store.derived_ids(target.id) if i != target.id])
    records = trail.records("delete", [target.namespace], **detail, cascaded=len(cascaded))
    records += cascade_records(trail, deleter, target, cascaded, via=str(detail.get("via", "")))
    append_audit(ports.audit, records)
    with _by_tool(detail, trail.scope.run_id, update=True):
        return store.soft_delete(target.id, target.namespace, now=ports.clock.now())


def _by_tool(detail: dict[str, Any], run_id: str | None, *, update: bool) -> AbstractContextManager[None]:
    """A run's memory tool changing an entry: its revision says the agent run did (issue 35.3); a new entry's
    own metadata already names its run."""
    return acting("agent_run", run_id) if update and detail.get("via") == "tool" else nullcontext()


def chunk_limit(ports: MemoryPorts) -> EmbeddingLimit:
    if ports.embedder is None:
        raise MemoryUnavailable("long-term memory is not configured")
    return limit_for(ports.embedder.model_id)


def write_documents(ports: MemoryPorts, documents: Sequence[MemoryDocument]) -> list[str]:
    """Embed and store ``documents`` (already chunked); the stored ids in order."""
    store, embedder = ports.require()
    vectors = embedder.embed([spoken(doc.content) for doc in documents])
    return store.put(list(zip(documents, vectors, strict=True)))


def write_audited(ports: MemoryPorts, documents: Sequence[MemoryDocument], records: list[AuditRecord]) -> list[str]:
    """:func:`write_documents`, then its audit records; when they cannot be written, the entries this write
    created are taken back before the error is raised — a memory never stays without the record of who
    wrote it, and a retry stores it once (an entry that was already there stays). A write of a user whose
    erasure runs, or ran meanwhile, keeps nothing and is a 409 (:mod:`.erasure_guard`)."""
    erasure_guard.refuse_if_erasing(ports, documents)
    ids = write_documents(ports, documents)
    try:
        erasure_guard.undo_if_erased(ports, documents, ids)
        append_audit(ports.audit, records)
    except Exception:
        store, _ = ports.require()
        store.hard_delete(created(documents, ids))
        raise
    return ids


def require_document(ports: MemoryPorts, doc_id: str, namespace: str) -> MemoryDocument:
    store, _ = ports.require()
    document = store.get(doc_id, namespace)
    if document is None or document.deleted or is_expired(document, ports.clock.now()):
        raise NotFound(f"no memory entry {doc_id!r} in {namespace!r}")
    return document
