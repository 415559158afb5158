"""Memory reads and tool writes over the ports, with their audit records (SPEC §5, §9).

Every read path goes through :func:`search`: denied namespaces are audited, the store is searched with the
filter inside the k-NN query, the hits are ranked, and the ``read`` records are written **before** the hits
are returned — if that write fails, the hits are never used (AuditWriteFailed propagates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mneme import telemetry
from mneme.engine.audit import AuditTrail, cascade_records, denial_records
from mneme.errors import AuditWriteFailed, MemoryUnavailable, NotFound
from mneme.memory.access import Denial, ReadAccess
from mneme.memory.ranking import Dropped, Ranked, k_for, rank_explained
from mneme.memory.retention import MemoryRetention, is_expired
from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.memory import MemoryClass, MemoryDocument, MemoryHit, default_class
from mneme.namespace_grammar import matches
from mneme.ports import AuditLog, Clock, Embedder, MemoryStore

RecordFactory = Callable[..., list[AuditRecord]]


@dataclass(frozen=True)
class Ranking:
    top_k: int
    min_score: float
    relative_cutoff: float


@dataclass(frozen=True)
class MemoryPorts:
    store: MemoryStore | None
    embedder: Embedder | None
    audit: AuditLog
    clock: Clock
    rules: Sequence[Any] = ()
    recency_decay: float = 0.05
    retention: MemoryRetention = field(default_factory=MemoryRetention)

    def require(self) -> tuple[MemoryStore, Embedder]:
        if self.store is None or self.embedder is None:
            raise MemoryUnavailable("long-term memory is not configured")
        return self.store, self.embedder

    def embed_one(self, text: str) -> list[float]:
        _, embedder = self.require()
        vectors = embedder.embed([text])
        return vectors[0]


def audit_denials(ports: MemoryPorts, records: RecordFactory, denied: Sequence[Denial], *, via: str) -> None:
    """Audit the namespaces a refused request tried (the refusal itself is answered by the caller)."""
    _append(ports.audit, denial_records(records, denied, via=via))


def search(
    ports: MemoryPorts,
    records: RecordFactory,
    access: ReadAccess,
    query: str,
    ranking: Ranking,
    *,
    via: str,
    vector: Sequence[float] | None = None,
    action: AuditAction = "read",
) -> list[MemoryHit]:
    """Search the granted namespaces; audit denials and reads (``action``: ``preview`` for the preview's);
    return the ranked hits.

    Raises MemoryUnavailable when the store or embeddings fail, AuditWriteFailed when the audit fails.
    """
    return search_explained(ports, records, access, query, ranking, via=via, vector=vector, action=action).hits


def search_explained(
    ports: MemoryPorts,
    records: RecordFactory,
    access: ReadAccess,
    query: str,
    ranking: Ranking,
    *,
    via: str,
    vector: Sequence[float] | None = None,
    action: AuditAction = "read",
) -> Ranked:
    """:func:`search`, also telling how many candidates each ranking rule dropped (in a retrieval span)."""
    attributes = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.data_source.id": list(access.allowed),
        "gen_ai.request.top_k": ranking.top_k,
        "mneme.memory.via": via,
        "mneme.memory.denied_namespaces": len(access.denied),
        "gen_ai.retrieval.query.text": telemetry.content(query),
    }
    with telemetry.span(f"retrieval {via}", attributes) as span:
        ranked = _search(ports, records, access, query, ranking, via=via, vector=vector, action=action)
        span.set_many(_ranked_attributes(ranked))
        return ranked


def _ranked_attributes(ranked: Ranked) -> dict[str, Any]:
    """Hit ids and scores, and how many candidates each rule dropped (never the content)."""
    dropped = {f"mneme.memory.dropped.{rule}": count for rule, count in ranked.dropped.as_dict().items()}
    return {
        "mneme.memory.candidates": ranked.candidates,
        "mneme.memory.hit_ids": [hit.id for hit in ranked.hits],
        "mneme.memory.hit_relevance": [round(hit.relevance, 4) for hit in ranked.hits],
        "mneme.memory.hit_similarity": [round(hit.similarity, 4) for hit in ranked.hits],
        **dropped,
    }


def _search(
    ports: MemoryPorts,
    records: RecordFactory,
    access: ReadAccess,
    query: str,
    ranking: Ranking,
    *,
    via: str,
    vector: Sequence[float] | None,
    action: AuditAction,
) -> Ranked:
    pending = denial_records(records, access.denied, via=via)
    try:
        if access.empty:
            return Ranked(hits=[], dropped=Dropped(), candidates=0)
        store, _ = ports.require()
        query_vector = list(vector) if vector is not None else ports.embed_one(query)
        now = ports.clock.now()
        candidates = store.search(query_vector, list(access.allowed), k_for(ranking.top_k), now=now)
        ranked = rank_explained(
            candidates,
            now=now,
            top_k=ranking.top_k,
            min_score=ranking.min_score,
            relative_cutoff=ranking.relative_cutoff,
            rules=ports.rules,
            recency_decay=ports.recency_decay,
        )
        for namespace in access.allowed:
            count = sum(1 for hit in ranked.hits if matches(namespace, hit.namespace))
            pending += records(action, [namespace], via=via, hits=count, top_k=ranking.top_k)
        to_write, pending = pending, []
        _append(ports.audit, to_write)
        return ranked
    finally:
        if pending:  # the search failed or found no namespace: the denials are still recorded
            _append(ports.audit, pending)


def hits_event(ranked: Ranked, access: ReadAccess, ranking: Ranking) -> dict[str, Any]:
    """The fields of a ``memory_hits`` run event: each hit's scores, what was dropped and why, denials."""
    return {
        "count": len(ranked.hits),
        "namespaces": list(access.allowed),
        "hits": [
            {
                "id": hit.id,
                "namespace": hit.namespace,
                "similarity": round(hit.similarity, 4),
                "relevance": round(hit.relevance, 4),
            }
            for hit in ranked.hits
        ],
        "k": k_for(ranking.top_k),
        "candidates": ranked.candidates,
        "dropped": ranked.dropped.as_dict(),
        "thresholds": {
            "top_k": ranking.top_k,
            "min_score": ranking.min_score,
            "relative_cutoff": ranking.relative_cutoff,
        },
        "denied": [{"namespace": denial.namespace, "reason": denial.reason} for denial in access.denied],
    }


def _append(audit: AuditLog, records: list[AuditRecord]) -> None:
    if records:
        audit.append(records)


def audited_write(
    ports: MemoryPorts,
    records: RecordFactory,
    action: AuditAction,
    namespace: str,
    operation: Callable[[], Any],
    **detail: Any,
) -> Any:
    """Run a memory write / update / delete and audit it; the audit failing fails the call (fail closed)."""
    attributes = {
        "mneme.memory.action": action,
        "mneme.memory.namespace": namespace,
        "mneme.memory.via": detail.get("via"),
    }
    with telemetry.span(f"memory.{action}", attributes) as span:
        result = operation()
        _append(ports.audit, records(action, [namespace], **detail))
        if isinstance(result, list):
            span.set_many({"mneme.memory.ids": [str(item) for item in result]})
        return result


def audited_delete(
    ports: MemoryPorts,
    trail: AuditTrail,
    deleter: str,
    target: MemoryDocument,
    **detail: Any,
) -> list[str]:
    """Soft-delete ``target`` (cascading to the entries derived from it) and audit it: the delete under the
    deleter, and each cascaded entry's under its owner (fail closed: an audit failure fails the call)."""
    store, _ = ports.require()
    deleted = store.soft_delete(target.id, target.namespace, now=ports.clock.now())
    cascaded = [doc for doc in store.entries([i for i in deleted if i != target.id])]
    records = trail.records("delete", [target.namespace], **detail, cascaded=len(cascaded))
    records += cascade_records(trail, deleter, target, cascaded, via=str(detail.get("via", "")))
    _append(ports.audit, records)
    return deleted


def new_document(
    doc_id: str,
    namespace: str,
    owner: str,
    content: str,
    *,
    clock: Clock,
    tags: Sequence[str] = (),
    metadata: dict[str, Any] | None = None,
    derived_from: Sequence[str] = (),
    ttl_seconds: int | None = None,
    memory_class: MemoryClass | None = None,
    retention: MemoryRetention | None = None,
) -> MemoryDocument:
    """A new entry; its class defaults by its ``source``, and it expires by the earlier of ``ttl_seconds`` and
    the deployment's retention for its class."""
    import hashlib

    now = clock.now()
    meta = metadata or {}
    cls = memory_class or default_class(meta.get("source"))
    return MemoryDocument(
        id=doc_id,
        namespace=namespace,
        owner_user_id=owner,
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        tags=list(tags),
        metadata=meta,
        derived_from=list(derived_from),
        created_at=now,
        updated_at=now,
        expires_at=(retention or MemoryRetention()).expires_at(now, cls, ttl_seconds),
        memory_class=cls,
    )


def write_documents(ports: MemoryPorts, documents: Sequence[MemoryDocument]) -> list[str]:
    store, embedder = ports.require()
    vectors = embedder.embed([doc.content for doc in documents])
    return store.put(list(zip(documents, vectors, strict=True)))


def require_document(ports: MemoryPorts, doc_id: str, namespace: str) -> MemoryDocument:
    store, _ = ports.require()
    document = store.get(doc_id, namespace)
    if document is None or document.deleted or is_expired(document, ports.clock.now()):
        raise NotFound(f"no memory entry {doc_id!r} in {namespace!r}")
    return document


__all__ = [
    "AuditWriteFailed",
    "MemoryPorts",
    "Ranking",
    "audited_delete",
    "audited_write",
    "denial_records",
    "hits_event",
    "new_document",
    "require_document",
    "search",
    "search_explained",
    "write_documents",
]
