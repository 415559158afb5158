"""Fusion of the vector and keyword (BM25) legs of a hybrid search (issue 13.4).

Both legs return at most ``k`` candidates with the same filter inside; :func:`fuse` merges them into one
list whose ``similarity`` is the fused score in ``[0, 1]``, best first. The SPEC §5.3 bonuses, recency,
``min_score`` and ``relative_cutoff`` then apply to that score (``mneme.memory.ranking``).

* ``rrf`` — reciprocal rank fusion: ``Σ 1 / (60 + rank)`` over the legs a candidate is in, divided by the
  best possible ``2 / 61``: 1.0 = first in both legs, 0.5 = first in one leg only.
* ``score`` — normalized scores: the cosine (clipped at 0) and the BM25 score divided by the leg's best,
  averaged (a leg a candidate is missing from counts 0) — OpenSearch's ``min_max`` + ``arithmetic_mean``.

A single leg (``vector`` or ``keyword`` retrieval) is passed through: the cosine as it is, BM25 divided by
its best (so a keyword-only ``min_score`` is a fraction of the best match).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from mneme.models.memory import MemoryCandidate

if TYPE_CHECKING:
    from collections.abc import Sequence

Retrieval = Literal["vector", "hybrid", "keyword"]
Fusion = Literal["rrf", "score"]
RRF_K = 60


def normalized_keyword(keyword: Sequence[MemoryCandidate]) -> list[MemoryCandidate]:
    best = max((c.similarity for c in keyword), default=0.0)
    if best <= 0:
        return []
    return [MemoryCandidate(document=c.document, similarity=c.similarity / best) for c in keyword]


def fuse(
    vector: Sequence[MemoryCandidate], keyword: Sequence[MemoryCandidate], *, method: Fusion = "rrf"
) -> list[MemoryCandidate]:
    """One list, best first (ties: id), each document once, ``similarity`` the fused score."""
    documents = {c.document.id: c.document for c in [*keyword, *vector]}
    scores: dict[str, float] = dict.fromkeys(documents, 0.0)
    if method == "rrf":
        for leg in (vector, keyword):
            for rank, candidate in enumerate(leg, start=1):
                scores[candidate.document.id] += 1.0 / (RRF_K + rank)
        top = 2.0 / (RRF_K + 1)
        scores = {doc_id: score / top for doc_id, score in scores.items()}
    else:
        for candidate in vector:
            scores[candidate.document.id] += max(0.0, candidate.similarity) / 2
        for candidate in normalized_keyword(keyword):
            scores[candidate.document.id] += candidate.similarity / 2
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    cosines = {c.document.id: c.similarity for c in vector}
    bm25 = {c.document.id: c.similarity for c in keyword}
    return [
        MemoryCandidate(
            document=documents[doc_id],
            similarity=score,
            vector_similarity=cosines.get(doc_id),
            keyword_score=bm25.get(doc_id),
        )
        for doc_id, score in ordered
    ]
