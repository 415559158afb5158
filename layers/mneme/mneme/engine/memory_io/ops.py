"""Memory reads and tool writes over the ports, with their audit records (SPEC §5, §9).

Every read path goes through :func:`search`: denied namespaces are audited, the store is searched with the
filter inside the k-NN query, the hits are ranked, and the ``read`` records are written **before** the hits
are returned — if that write fails, the hits are never used (AuditWriteFailed propagates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mneme import telemetry
from mneme.engine.audit import denial_records
from mneme.engine.memory_io.entries import chunked, new_document
from mneme.engine.memory_io.retrieval import candidate_depth, retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.errors import AuditWriteFailed, MemoryUnavailable
from mneme.memory import conversation, rerank, updates
from mneme.memory.access import Denial, ReadAccess
from mneme.memory.ranking import Dropped, Outcome, Ranked, rank_explained
from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.memory import MemoryCandidate, MemoryHit
from mneme.namespace_grammar import matches
from mneme.ports.audit import AuditLog
from mneme.records import replace

if TYPE_CHECKING:
    from datetime import datetime

    from mneme.ports.memory import MemoryView

RecordFactory = Callable[..., list[AuditRecord]]


def audit_denials(ports: MemoryPorts, records: RecordFactory, denied: Sequence[Denial], *, via: str) -> None:
    """Audit the namespaces a refused request tried (the refusal itself is answered by the caller)."""
    append_audit(ports.audit, denial_records(records, denied, via=via))


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
    outcomes: dict[str, Outcome] | None = None,
) -> Ranked:
    """:func:`search`, counting what each ranking rule dropped; ``outcomes``: each candidate's fate (explain)."""
    attributes = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.data_source.id": list(access.allowed),
        "gen_ai.request.top_k": ranking.top_k,
        "mneme.memory.via": via,
        "mneme.memory.denied_namespaces": len(access.denied),
        "gen_ai.retrieval.query.text": telemetry.content(query),
    }
    with telemetry.span(f"retrieval {via}", attributes) as span:
        ranked = _search(ports, records, access, query, ranking, via=via, vector=vector, action=action, out=outcomes)
        span.set_many(_ranked_attributes(ranked))
        return ranked


def _ranked_attributes(ranked: Ranked) -> dict[str, Any]:
    dropped = {f"mneme.memory.dropped.{rule}": count for rule, count in ranked.dropped.as_dict().items()}
    return {
        "mneme.memory.candidates": ranked.candidates,
        "mneme.memory.hit_ids": [hit.id for hit in ranked.hits],
        "mneme.memory.hit_relevance": [round(hit.relevance, 4) for hit in ranked.hits],
        "mneme.memory.hit_similarity": [round(hit.similarity, 4) for hit in ranked.hits],
        **({"mneme.memory.rerank": ranked.rerank} if ranked.rerank else {}),
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
    out: dict[str, Outcome] | None,
) -> Ranked:
    pending = denial_records(records, access.denied, via=via)
    try:
        if access.empty:
            return Ranked(hits=[], dropped=Dropped(), candidates=0)
        store = ports.searched()
        now = ports.clock.now()
        notes: dict[str, Any] = {}
        candidates = [
            c
            for c in retrieve(ports, store, access, query, ranking, vector=vector, now=now, notes=notes)
            if c.document.id not in ports.hidden_ids
        ]
        candidates, rerank_status = rerank.apply(ports.reranker, query, candidates, ranking.top_k)
        candidates, restated = updates.later_first(candidates, query)
        reranked_by = None if rerank_status is None or rerank_status.startswith("failed:") else rerank_status
        min_score, cutoff = ranking.floors(ports.model_id, reranked_by=reranked_by)
        ranked = rank_explained(
            candidates,
            now=now,
            top_k=ranking.top_k,
            min_score=min_score,
            relative_cutoff=cutoff,
            rules=ports.rules,
            recency_decay=ports.recency_decay,
            outcomes=out,
        )
        if out is not None:
            updates.note(out, restated)
            for doc_id in set(notes.get("says_nothing", ())) & out.keys():
                out[doc_id] = replace(out[doc_id], says_nothing=True)
        if ranking.lines:
            ranked = replace(ranked, hits=_with_lines(ports, store, ranked.hits, candidates, notes, now=now))
        for namespace in access.allowed:
            count = sum(1 for hit in ranked.hits if matches(namespace, hit.namespace))
            pending += records(action, [namespace], via=via, hits=count, top_k=ranking.top_k)
        to_write, pending = pending, []
        append_audit(ports.audit, to_write)
        return replace(
            ranked, rerank=rerank_status, name_lift=notes.get("name_lift"), confidence=notes.get("confidence")
        )
    finally:
        if pending:  # the search failed or found no namespace: the denials are still recorded
            append_audit(ports.audit, pending)


def _with_lines(
    ports: MemoryPorts,
    store: MemoryView,
    hits: list[MemoryHit],
    candidates: Sequence[MemoryCandidate],
    notes: dict[str, Any],
    *,
    now: datetime,
) -> list[MemoryHit]:
    """The hits with the lines of their conversations (:mod:`mneme.memory.conversation`), read from what the
    fusion already read or, for the hits it did not read around, in one more store call. A store that fails
    then leaves the hits without lines: they are what the search owes."""
    around: dict[str, Any] = dict(notes.get("around") or {})
    documents = {c.document.id: c.document for c in candidates}
    missing = [documents[i] for i in conversation.wanted(hits) if i not in around and i in documents]
    if missing:
        try:
            around |= store.adjacent(missing, conversation.SPAN, now=now)
        except MemoryUnavailable:
            return hits
    return conversation.with_lines(hits, around, hidden=ports.hidden_ids)


def hits_event(ranked: Ranked, access: ReadAccess, ranking: Ranking, model_id: str = "unknown") -> dict[str, Any]:
    """The fields of a ``memory_hits`` run event: each hit's scores, what was dropped and why (the floors in
    force: the policy's or those calibrated for ``model_id``), denials."""
    by = ranked.rerank if ranked.rerank and not ranked.rerank.startswith("failed:") else None
    min_score, cutoff = ranking.floors(model_id, reranked_by=by)
    return {
        "count": len(ranked.hits),
        "namespaces": list(access.allowed),
        "hits": [
            {
                "id": hit.id,
                "namespace": hit.namespace,
                "similarity": round(hit.similarity, 4),
                "relevance": round(hit.relevance, 4),
                **({"lines": [{"id": line.id, "offset": line.offset} for line in hit.context]} if hit.context else {}),
            }
            for hit in ranked.hits
        ],
        "k": candidate_depth(ranking),
        "candidates": ranked.candidates,
        "dropped": ranked.dropped.as_dict(),
        "thresholds": {
            "top_k": ranking.top_k,
            "min_score": min_score,
            "relative_cutoff": cutoff,
            "retrieval": ranking.retrieval,
        },
        "denied": [{"namespace": denial.namespace, "reason": denial.reason} for denial in access.denied],
        **({"rerank": ranked.rerank} if ranked.rerank else {}),
        **({"name_lift": ranked.name_lift} if ranked.name_lift else {}),
        **({"confidence": ranked.confidence} if ranked.confidence else {}),
    }


def append_audit(audit: AuditLog, records: list[AuditRecord]) -> None:
    if records:
        audit.append(records)


__all__ = [
    "AuditWriteFailed",
    "MemoryPorts",
    "Ranking",
    "chunked",
    "denial_records",
    "hits_event",
    "new_document",
    "search",
    "search_explained",
]
