"""Ranking of memory search candidates (SPEC §5.3).

``relevance = similarity × (1 + Σ bonus of matching namespace rules + recency_decay / (1 + age_days))``,
then: drop below ``min_score``, dedupe identical content (first wins), keep hits ≥ ``best ×
relative_cutoff`` (0 = off), return the first ``top_k``. :func:`rank_explained` also counts the
candidates each rule dropped (shown by the ``memory_hits`` run event and the console's trace view).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mneme.memory.content_prior import content_factor
from mneme.memory.speakers import spoken
from mneme.models.memory import MemoryHit
from mneme.namespace_grammar import matches
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.models.memory import MemoryCandidate, MemoryDocument, NamespaceRule

CANDIDATE_FACTOR = 4
DEFAULT_RECENCY_DECAY = 0.05
_SECONDS_PER_DAY = 86_400.0


def k_for(top_k: int) -> int:
    """How many k-NN candidates to fetch for ``top_k`` hits."""
    return CANDIDATE_FACTOR * top_k


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def age_days(created_at: datetime, now: datetime) -> float:
    """Fractional days from ``created_at`` to ``now``, never negative (naive datetimes are UTC)."""
    seconds = (_aware(now) - _aware(created_at)).total_seconds()
    return max(0.0, seconds / _SECONDS_PER_DAY)


def namespace_bonus(namespace: str, rules: Sequence[NamespaceRule]) -> float:
    """The sum of the bonuses of every rule whose (resolved) pattern matches ``namespace``."""
    return sum(rule.bonus for rule in rules if matches(rule.pattern, namespace))


def relevance(
    similarity: float,
    namespace: str,
    created_at: datetime,
    *,
    now: datetime,
    rules: Sequence[NamespaceRule] = (),
    recency_decay: float = DEFAULT_RECENCY_DECAY,
) -> float:
    """The final relevance of one candidate."""
    recency = recency_decay / (1.0 + age_days(created_at, now))
    return similarity * (1.0 + namespace_bonus(namespace, rules) + recency)


def _usable(document: MemoryDocument, now: datetime) -> bool:
    """Defence in depth: the store filters these already."""
    if document.deleted or document.superseded:
        return False
    return document.expires_at is None or _aware(document.expires_at) > _aware(now)


class Dropped(Record):
    """How many candidates each rule removed, in the order the rules apply."""

    unusable: int = 0  # deleted, superseded or expired (the store filters these already)
    min_score: int = 0
    duplicate: int = 0
    relative_cutoff: int = 0
    top_k: int = 0  # ranked below the first ``top_k``

    def as_dict(self) -> dict[str, int]:
        return {
            "unusable": self.unusable,
            "min_score": self.min_score,
            "duplicate": self.duplicate,
            "relative_cutoff": self.relative_cutoff,
            "top_k": self.top_k,
        }


class Outcome(Record):
    """What ranking made of one candidate (explain): ``hit`` or the rule that dropped it, and its scores."""

    reason: str
    namespace: str
    similarity: float | None = None  # the candidate's (fused) similarity
    vector_similarity: float | None = None
    keyword_score: float | None = None
    relevance: float | None = None
    aged_from: datetime | None = None  # the moment recency counts from
    of: str | None = None  # duplicate: the id of the hit with the same content
    content: float | None = None  # the content factor of the memory's text (mneme.memory.content_prior)
    restates: str | None = None  # the candidate it was lifted above as a later statement (mneme.memory.updates)
    says_nothing: bool = False  # a note that says nothing of the question (mneme.memory.hybrid.says_nothing)

    @classmethod
    def of_hit(cls, reason: str, hit: MemoryHit, of: str | None = None) -> Outcome:
        return cls(
            reason=reason,
            namespace=hit.namespace,
            similarity=hit.similarity,
            vector_similarity=hit.vector_similarity,
            keyword_score=hit.keyword_score,
            relevance=hit.relevance,
            aged_from=hit.observed_at or hit.created_at,
            of=of,
            content=content_factor(hit.content),
        )


class Ranked(Record):
    """The hits and the accounting of the rest: ``candidates == len(hits) + Σ dropped``."""

    hits: list[MemoryHit]
    dropped: Dropped
    candidates: int
    rerank: str | None = None  # the reranking model that ordered the hits, or "failed: <reason>" (None: none set)
    name_lift: dict[str, Any] | None = None  # the speakers a question named and the vector share it kept (explain)
    confidence: dict[str, Any] | None = None  # what vouched for the query: value, cosine, keyword coverage (explain)


def rank(
    candidates: Sequence[MemoryCandidate],
    *,
    now: datetime,
    top_k: int,
    min_score: float,
    relative_cutoff: float,
    rules: Sequence[NamespaceRule] = (),
    recency_decay: float = DEFAULT_RECENCY_DECAY,
) -> list[MemoryHit]:
    """Rank candidates into at most ``top_k`` hits, best first (see :func:`rank_explained`)."""
    return rank_explained(
        candidates,
        now=now,
        top_k=top_k,
        min_score=min_score,
        relative_cutoff=relative_cutoff,
        rules=rules,
        recency_decay=recency_decay,
    ).hits


def rank_explained(
    candidates: Sequence[MemoryCandidate],
    *,
    now: datetime,
    top_k: int,
    min_score: float,
    relative_cutoff: float,
    rules: Sequence[NamespaceRule] = (),
    recency_decay: float = DEFAULT_RECENCY_DECAY,
    outcomes: dict[str, Outcome] | None = None,
) -> Ranked:
    """Rank candidates into at most ``top_k`` hits, best first, counting what each rule dropped.

    Ties in relevance are broken deterministically: higher similarity, then newer, then smaller id.
    Content is compared after stripping surrounding whitespace. With ``outcomes`` (explain), each
    candidate's id is mapped to what became of it (``hit`` or the rule that dropped it) and its relevance.
    """
    note = outcomes.__setitem__ if outcomes is not None else None
    scored: list[MemoryHit] = []
    unusable = below_min = 0
    for candidate in candidates:
        doc = candidate.document
        if not _usable(doc, now):
            unusable += 1
            if note:
                note(doc.id, Outcome(reason=unusable_reason(doc, now), namespace=doc.namespace))
            continue
        score = relevance(
            candidate.similarity,
            doc.namespace,
            doc.observed_at or doc.created_at,  # the age of what was said, when known
            now=now,
            rules=rules,
            recency_decay=recency_decay,
        )
        if score < min_score:
            below_min += 1
            if note:
                note(doc.id, Outcome.of_hit("below_floor", hit_of(candidate, score)))
            continue
        scored.append(hit_of(candidate, score))
    scored.sort(key=lambda h: (-h.relevance, -h.similarity, -_aware(h.created_at).timestamp(), h.id))

    unique: list[MemoryHit] = []
    seen: dict[str, str] = {}
    for hit in scored:
        key = spoken(hit.content).strip()  # the same words, whenever said: one hit
        if key not in seen:
            seen[key] = hit.id
            unique.append(hit)
        elif note:
            note(hit.id, Outcome.of_hit("duplicate", hit, of=seen[key]))
    kept = unique
    if kept and relative_cutoff > 0:
        floor = kept[0].relevance * relative_cutoff
        kept = [hit for hit in kept if hit.relevance >= floor]
    hits = kept[: max(top_k, 0)]
    if note:
        _note_kept(note, unique, kept, hits)
    dropped = Dropped(
        unusable=unusable,
        min_score=below_min,
        duplicate=len(scored) - len(unique),
        relative_cutoff=len(unique) - len(kept),
        top_k=len(kept) - len(hits),
    )
    return Ranked(hits=hits, dropped=dropped, candidates=len(candidates))


def hit_of(candidate: MemoryCandidate, score: float, *, standing: bool = False) -> MemoryHit:
    """The hit of a ranked ``candidate`` whose relevance is ``score`` (``standing``: shown whatever the question)."""
    doc = candidate.document
    return MemoryHit(
        id=doc.id,
        namespace=doc.namespace,
        content=doc.content,
        similarity=candidate.similarity,
        relevance=score,
        created_at=doc.created_at,
        metadata=dict(doc.metadata),
        memory_class=doc.memory_class,
        observed_at=doc.observed_at,
        parent_id=doc.parent_id,
        chunk_index=doc.chunk_index,
        chunk_count=doc.chunk_count,
        vector_similarity=candidate.vector_similarity,
        keyword_score=candidate.keyword_score,
        standing=standing,
    )


def _note_kept(note: Any, unique: list[MemoryHit], kept: list[MemoryHit], hits: list[MemoryHit]) -> None:
    kept_ids, hit_ids = {hit.id for hit in kept}, {hit.id for hit in hits}
    for hit in unique:
        reason = "hit" if hit.id in hit_ids else "top_k" if hit.id in kept_ids else "relative_cutoff"
        note(hit.id, Outcome.of_hit(reason, hit))


def unusable_reason(document: MemoryDocument, now: datetime) -> str:
    """Why a stored entry is never a candidate: ``deleted``, ``superseded``, ``expired`` (else "")."""
    if document.deleted:
        return "deleted"
    if document.superseded:
        return "superseded"
    return "" if _usable(document, now) else "expired"


def rule_instructions(hits: Sequence[MemoryHit], rules: Sequence[NamespaceRule]) -> list[str]:
    """The instruction of every rule that matches at least one hit, once per rule group (the same text of
    several rules counts once), in rule order — shown to the model after the memory entries."""
    shown: list[str] = []
    for rule in rules:
        text = (rule.instruction or "").strip()
        if text and text not in shown and any(matches(rule.pattern, hit.namespace) for hit in hits):
            shown.append(text)
    return shown
