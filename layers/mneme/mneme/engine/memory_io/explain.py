"""Explain recall (issue 35.1): the hits of a search with their score parts, and the entries that were not
recalled with the first rule that kept each out.

The search itself is the normal one (:func:`mneme.engine.memory_io.ops.search_explained`, its audit
included), asked to note each candidate's fate. What the store's filter keeps out of the candidates
(deleted, superseded, expired, a namespace not granted) is found among the caller's **own** entries
(``MemoryStore.iter_owned``, at most :data:`SCAN`) and the ``extra`` entries the caller may read: nothing of
another user's memory is ever looked at. Those are ranked by their cosine to the query (their content
embedded here — explaining costs more than searching; the normal path pays nothing of it), and the closest
(as many as the search's candidate depth) are listed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from itertools import islice
from typing import Any

from mneme.engine.memory_io.ops import MemoryPorts, Ranking, RecordFactory, search_explained
from mneme.engine.memory_io.retrieval import candidate_depth
from mneme.memory.access import ReadAccess
from mneme.memory.ranking import Outcome, Ranked, age_days, namespace_bonus, unusable_reason
from mneme.memory.speakers import spoken
from mneme.models.memory import MemoryDocument
from mneme.namespace_grammar import matches
from mneme.records import Record, field

SCAN = 200  # own entries looked at for what the store's filter kept out
#: every reason an entry is not recalled, in the order the rules apply
REASONS = (
    "namespace_not_granted",
    "deleted",
    "superseded",
    "expired",
    "not_retrieved",  # live and granted, but beyond the depth of every retrieval leg
    "below_floor",
    "duplicate",
    "relative_cutoff",
    "top_k",
)


class Explanation(Record):
    hits: list[dict[str, Any]]
    dropped: list[dict[str, Any]]
    ranked: Ranked
    thresholds: dict[str, Any] = field(default_factory=dict)

    def reason_of(self, doc_id: str) -> dict[str, Any] | None:
        """``None`` when the entry is a hit, else its drop (``not_retrieved`` when never seen)."""
        if any(hit["id"] == doc_id for hit in self.hits):
            return None
        return next((d for d in self.dropped if d["id"] == doc_id), {"id": doc_id, "reason": "not_retrieved"})


def explain_search(
    ports: MemoryPorts,
    records: RecordFactory,
    access: ReadAccess,
    query: str,
    ranking: Ranking,
    *,
    user_id: str,
    via: str,
    granted_by: str,
    extra: Sequence[MemoryDocument] = (),
    action: Any = "read",
) -> Explanation:
    """The search of ``query`` over ``access``, explained. ``granted_by`` names the rule that chose the searched
    namespaces (``request.namespaces``, ``policy.read_namespaces``, ...) for entries outside them."""
    outcomes: dict[str, Outcome] = {}
    vector = ports.embed_one(query) if ranking.retrieval != "keyword" and not access.empty else None
    ranked = search_explained(
        ports, records, access, query, ranking, via=via, vector=vector, action=action, outcomes=outcomes
    )
    now = ports.clock.now()
    hits = [_scored(ports, hit.id, outcomes[hit.id], ranking, now) for hit in ranked.hits]
    dropped = [
        _scored(ports, doc_id, outcome, ranking, now) for doc_id, outcome in outcomes.items() if outcome.reason != "hit"
    ]
    filtered = _filtered(ports, access, outcomes, vector, user_id=user_id, granted_by=granted_by, extra=extra)
    dropped += filtered[: max(candidate_depth(ranking), len(extra))]  # the closest to the query
    min_score, cutoff = ranking.floors(ports.model_id)
    thresholds = {
        "top_k": ranking.top_k,
        "min_score": min_score,
        "relative_cutoff": cutoff,
        "retrieval": ranking.retrieval,
        "fusion": ranking.fusion,
        "depth": candidate_depth(ranking),
        **({"name_lift": ranked.name_lift} if ranked.name_lift else {}),
        **({"confidence": ranked.confidence} if ranked.confidence else {}),
    }
    return Explanation(hits=hits, dropped=dropped, ranked=ranked, thresholds=thresholds)


def _scored(ports: MemoryPorts, doc_id: str, outcome: Outcome, ranking: Ranking, now: datetime) -> dict[str, Any]:
    """One candidate's reason and score parts: ``relevance = similarity × (1 + rule_bonus + recency)``."""
    entry: dict[str, Any] = {"id": doc_id, "namespace": outcome.namespace, "reason": outcome.reason}
    if outcome.of is not None:
        entry["duplicate_of"] = outcome.of
    if outcome.restates is not None:
        entry["restates"] = outcome.restates  # its similarity lifted just above that one's (mneme.memory.updates)
    if outcome.says_nothing:
        entry["says_nothing"] = True  # its relevance a thousandth of its share: under every floor
    if outcome.similarity is None:
        return entry
    recency = ports.recency_decay / (1.0 + age_days(outcome.aged_from, now)) if outcome.aged_from else 0.0
    entry["scores"] = {
        "similarity": _round(outcome.similarity),
        "vector": _round(outcome.similarity if ranking.retrieval == "vector" else outcome.vector_similarity),
        "keyword": _round(outcome.keyword_score),
        "rule_bonus": _round(namespace_bonus(outcome.namespace, ports.rules)),
        "recency": _round(recency),
        "content": None if ranking.retrieval == "vector" else _round(outcome.content),  # inside "similarity"
        "relevance": _round(outcome.relevance),
        "fusion": ranking.fusion if ranking.retrieval == "hybrid" else ranking.retrieval,
    }
    return entry


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _filtered(
    ports: MemoryPorts,
    access: ReadAccess,
    outcomes: dict[str, Outcome],
    vector: Sequence[float] | None,
    *,
    user_id: str,
    granted_by: str,
    extra: Sequence[MemoryDocument],
) -> list[dict[str, Any]]:
    """The caller's entries that never were candidates, with the first rule that kept each out, best first."""
    _, embedder = ports.require()
    store, now = ports.searched(), ports.clock.now()
    seen = dict.fromkeys(outcomes)
    unseen: list[MemoryDocument] = []
    for doc in [*extra, *islice(store.iter_owned(user_id), SCAN)] if user_id else list(extra):
        if doc.id not in seen:
            seen[doc.id] = None
            unseen.append(doc)
    if not unseen:
        return []
    cosines = (
        _cosines(vector, embedder.embed([spoken(doc.content) for doc in unseen])) if vector else [0.0] * len(unseen)
    )
    found = []
    for doc, cosine in sorted(zip(unseen, cosines, strict=True), key=lambda pair: (-pair[1], pair[0].id)):
        entry = {"id": doc.id, "namespace": doc.namespace, **_kept_out(doc, access, now, granted_by)}
        entry["scores"] = {"vector": round(cosine, 4)}
        found.append(entry)
    return found


def _kept_out(doc: MemoryDocument, access: ReadAccess, now: datetime, granted_by: str) -> dict[str, Any]:
    if not any(matches(pattern, doc.namespace) for pattern in access.allowed):
        denial = next((d for d in access.denied if matches(d.namespace, doc.namespace)), None)
        rule = f"security_filter:{denial.reason}" if denial is not None else granted_by
        return {"reason": "namespace_not_granted", "rule": rule, "searched": list(access.allowed)}
    reason = unusable_reason(doc, now) or "not_retrieved"
    detail: dict[str, Any] = {"reason": reason}
    if reason == "superseded" and doc.superseded_by:
        detail["superseded_by"] = doc.superseded_by
    if reason == "expired":
        detail["expired_at"] = doc.expires_at.isoformat() if doc.expires_at else None
    return detail


def _cosines(query: Sequence[float], vectors: Sequence[Sequence[float]]) -> list[float]:
    def norm(v: Sequence[float]) -> float:
        return math.sqrt(math.fsum(x * x for x in v)) or 1.0

    q = norm(query)
    return [math.fsum(a * b for a, b in zip(query, v, strict=True)) / (q * norm(v)) for v in vectors]
