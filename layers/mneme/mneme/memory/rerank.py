"""The optional second stage of memory search: a reranking model scores the first stage's best candidates.

A cross-encoder reads the query and each candidate's text together, which the first stage (cosine over separate
vectors, BM25 over words) cannot: on real conversations the fused first stage holds 0.90 of the evidence in its
top 50 but only 0.77 in its top 10 (/work/shared/reference/memory-retrieval.md), the gap a second stage closes.

* The best :data:`DEPTH` candidates (at least ``top_k``) are sent; the model's scores replace their relevance and
  their order (ties keep the first stage's order). Candidates beyond the depth are not returned: the model never
  saw them, so no score of theirs is comparable.
* The reranker's score is calibrated by its model, so its own floor applies (:data:`FLOORS`) unless the policy
  sets ``min_score``; the relative cutoff stays the policy's.
* A failing reranker never fails a search: the first stage's order stands and the caller records why.

On AWS the port is Bedrock's Rerank API (``mneme.adapters.models.bedrock_rerank``), chosen at deploy time
(``MemoryRerankModel``); no reranking model ships as a package, so local mode has none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme.errors import RerankUnavailable
from mneme.models.memory import MemoryCandidate

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.ports.models import Reranker

DEPTH = 30
#: reranking model → the relevance below which a candidate says nothing (not measured offline: no Bedrock here;
#: both models answer near 0 for unrelated text and above 0.5 for a clear answer, per their model cards)
FLOORS: dict[str, float] = {"amazon.rerank-v1:0": 0.1, "cohere.rerank-v3-5:0": 0.1}
DEFAULT_FLOOR = 0.1


def depth(top_k: int) -> int:
    """How many first-stage candidates the model scores."""
    return max(DEPTH, top_k)


def floor(model_id: str) -> float:
    return FLOORS.get(model_id.rsplit("/", 1)[-1], DEFAULT_FLOOR)


def reordered(candidates: Sequence[MemoryCandidate], scores: Sequence[float]) -> list[MemoryCandidate]:
    """The scored candidates by the model's score, best first, each carrying it as its similarity."""
    if len(scores) != len(candidates):
        raise ValueError(f"{len(scores)} scores for {len(candidates)} candidates")
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [candidates[i].model_copy(update={"similarity": min(1.0, max(0.0, float(scores[i])))}) for i in order]


def apply(
    reranker: Reranker | None, query: str, candidates: list[MemoryCandidate], top_k: int
) -> tuple[list[MemoryCandidate], str | None]:
    """The candidates in the reranking model's order and the model's id; or as they were, with None (no reranker,
    nothing to rank) or ``"failed: <reason>"`` (the reranker failed: a search never fails for its optional stage,
    the first stage's order stands and the search's event and span say so)."""
    if reranker is None or not candidates:
        return candidates, None
    scored = candidates[: depth(top_k)]
    try:
        scores = reranker.rerank(query, [c.document.content for c in scored])
    except RerankUnavailable as exc:
        return candidates, f"failed: {str(exc)[:200]}"
    return reordered(scored, scores), reranker.model_id
