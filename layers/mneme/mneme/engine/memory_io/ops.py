"""Memory reads and tool writes over the ports, with their audit records (SPEC §5, §9).

Every read path goes through :func:`search`: denied namespaces are audited, the store is searched with the
filter inside the k-NN query, the hits are ranked, and the ``read`` records are written **before** the hits
are returned — if that write fails, the hits are never used (AuditWriteFailed propagates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from mneme import telemetry
from mneme.engine.audit import denial_records
from mneme.engine.memory_io.entries import chunked, new_document
from mneme.errors import AuditWriteFailed, MemoryUnavailable
from mneme.memory import hybrid
from mneme.memory.access import Denial, ReadAccess
from mneme.memory.embedding_limits import clip_query, limit_for
from mneme.memory.entry_retention import MemoryRetention
from mneme.memory.fusion import fuse
from mneme.memory.keyword_scoring import MATCH_LIMIT, Bm25, score_documents
from mneme.memory.keywords import query_words
from mneme.memory.ranking import Dropped, Outcome, Ranked, k_for, rank_explained
from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.memory import MemoryCandidate, MemoryHit
from mneme.models.policy import DEFAULT_RETRIEVAL, Fusion, ResolvedPolicy, Retrieval
from mneme.namespace_grammar import matches
from mneme.ports.audit import AuditLog
from mneme.ports.common import Clock
from mneme.ports.memory import MemoryStore
from mneme.ports.models import Embedder
from mneme.records import Record, field

RecordFactory = Callable[..., list[AuditRecord]]


class Ranking(Record):
    """How one search ranks: ``min_score`` / ``relative_cutoff`` None take the floors calibrated for the
    embedding model and ``retrieval`` mode (:mod:`mneme.memory.embedding_limits`); they apply to the fused score."""

    top_k: int
    min_score: float | None = None
    relative_cutoff: float | None = None
    retrieval: Retrieval = DEFAULT_RETRIEVAL
    fusion: Fusion = "score"

    @classmethod
    def of(cls, policy: ResolvedPolicy, top_k: int | None = None) -> Ranking:
        return cls(top_k or policy.top_k, policy.min_score, policy.relative_cutoff, policy.retrieval, policy.fusion)

    def floors(self, model_id: str) -> tuple[float, float]:
        calibrated = limit_for(model_id).floor(self.retrieval)
        return (
            calibrated[0] if self.min_score is None else self.min_score,
            calibrated[1] if self.relative_cutoff is None else self.relative_cutoff,
        )


class MemoryPorts(Record):
    store: MemoryStore | None
    embedder: Embedder | None
    audit: AuditLog
    clock: Clock
    rules: Sequence[Any] = ()
    recency_decay: float = 0.05
    retention: MemoryRetention = field(default_factory=MemoryRetention)
    hidden_ids: frozenset[str] = frozenset()  # deleted moments ago: a store may still show them (issue 11.4)

    def require(self) -> tuple[MemoryStore, Embedder]:
        if self.store is None or self.embedder is None:
            raise MemoryUnavailable("long-term memory is not configured")
        return self.store, self.embedder

    def embed_one(self, text: str) -> list[float]:
        """A query's vector: cut to the model's input limit (a search never fails on its length)."""
        _, embedder = self.require()
        vectors = embedder.embed([clip_query(text, limit_for(embedder.model_id))])
        return vectors[0]

    def embed_content(self, text: str) -> list[float]:
        """An entry's vector: never cut — content over the model's limit raises EmbeddingInputTooLong (413)."""
        _, embedder = self.require()
        return embedder.embed([text])[0]

    @property
    def model_id(self) -> str:
        return self.embedder.model_id if self.embedder is not None else "unknown"


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
        store, _ = ports.require()
        now = ports.clock.now()
        candidates = retrieve(ports, store, access, query, ranking, vector=vector, now=now)
        min_score, cutoff = ranking.floors(ports.model_id)
        ranked = rank_explained(
            [c for c in candidates if c.document.id not in ports.hidden_ids],
            now=now,
            top_k=ranking.top_k,
            min_score=min_score,
            relative_cutoff=cutoff,
            rules=ports.rules,
            recency_decay=ports.recency_decay,
            outcomes=out,
        )
        for namespace in access.allowed:
            count = sum(1 for hit in ranked.hits if matches(namespace, hit.namespace))
            pending += records(action, [namespace], via=via, hits=count, top_k=ranking.top_k)
        to_write, pending = pending, []
        append_audit(ports.audit, to_write)
        return ranked
    finally:
        if pending:  # the search failed or found no namespace: the denials are still recorded
            append_audit(ports.audit, pending)


def retrieve(
    ports: MemoryPorts,
    store: MemoryStore,
    access: ReadAccess,
    query: str,
    ranking: Ranking,
    *,
    vector: Sequence[float] | None,
    now: datetime,
) -> list[MemoryCandidate]:
    """The candidates of one search: the vector leg, the keyword leg, or both fused (each leg filtered
    inside its own query by the same granted namespaces and liveness; :mod:`mneme.memory.hybrid`)."""
    patterns = list(access.allowed)
    depth = candidate_depth(ranking)
    by_vector: list[MemoryCandidate] = []
    if ranking.retrieval in ("vector", "hybrid"):
        query_vector = list(vector) if vector is not None else ports.embed_one(query)
        by_vector = store.search(query_vector, patterns, depth, now=now)
    if ranking.retrieval == "vector":
        return by_vector
    words = query_words(query)
    limit = MATCH_LIMIT if ranking.retrieval == "hybrid" else 4 * MATCH_LIMIT  # alone, the leg's own depth matters
    matches = store.keyword_matches(words, patterns, limit, now=now) if words else None
    if matches is None:
        return [] if ranking.retrieval == "keyword" else _vector_only(ports, by_vector)
    bm25 = Bm25(words, matches)
    turns = score_documents(bm25, matches)
    if ranking.retrieval == "keyword":
        return hybrid.keyword_only(turns, bm25)
    if ranking.fusion == "rrf":
        keyword = [MemoryCandidate(document=d, similarity=s, keyword_score=s) for d, s in turns[: k_for(ranking.top_k)]]
        return fuse(by_vector[: k_for(ranking.top_k)], keyword, method="rrf")
    around = store.adjacent(hybrid.anchors(by_vector, turns), hybrid.SPAN, now=now)
    model_id = ports.model_id
    return hybrid.fuse(
        by_vector, turns, bm25, around, confidence_of=lambda cosine: hybrid.cosine_confidence(model_id, cosine)
    )


def candidate_depth(ranking: Ranking) -> int:
    """Candidates fetched per leg: ``4 × top_k`` alone (the order of one leg needs no more) or for the old rank
    fusion, else a depth independent of ``top_k`` (the fusion's own candidates)."""
    if ranking.retrieval == "vector" or ranking.fusion == "rrf":
        return k_for(ranking.top_k)
    return max(hybrid.DEPTH, ranking.top_k)


def _vector_only(ports: MemoryPorts, by_vector: list[MemoryCandidate]) -> list[MemoryCandidate]:
    """A query without a searchable word: the vector leg, its cosines calibrated like the fused score's."""
    return [
        MemoryCandidate(
            document=c.document,
            similarity=hybrid.cosine_confidence(ports.model_id, c.similarity),
            vector_similarity=c.similarity,
        )
        for c in by_vector
    ]


def hits_event(ranked: Ranked, access: ReadAccess, ranking: Ranking, model_id: str = "unknown") -> dict[str, Any]:
    """The fields of a ``memory_hits`` run event: each hit's scores, what was dropped and why (the floors in
    force: the policy's or those calibrated for ``model_id``), denials."""
    min_score, cutoff = ranking.floors(model_id)
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
