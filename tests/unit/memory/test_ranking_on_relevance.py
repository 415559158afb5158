"""``min_score`` and the relative cutoff apply to the final relevance, not to the raw similarity (SPEC §5.3).

Each case makes the two disagree: a namespace bonus or recency lifts relevance over the floor while the
similarity stays under it, or a bonus of the best hit raises the cutoff over a similarity that clears it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mneme.memory.ranking import rank
from mneme.models.memory import MemoryCandidate, MemoryDocument, MemoryHit, NamespaceRule

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PLAIN = "vector.agent.alice.memory"
FAVOURED = "vector.user.alice.memory"
BONUS = (NamespaceRule(pattern=FAVOURED, bonus=0.3),)


def candidate(
    doc_id: str, similarity: float, namespace: str = PLAIN, age: timedelta = timedelta(days=1000)
) -> MemoryCandidate:
    created = NOW - age
    doc = MemoryDocument(
        id=doc_id,
        namespace=namespace,
        owner_user_id="alice",
        content=f"content of {doc_id}",
        content_hash=doc_id,
        created_at=created,
        updated_at=created,
    )
    return MemoryCandidate(document=doc, similarity=similarity)


def ids(hits: list[MemoryHit]) -> list[str]:
    return [hit.id for hit in hits]


def ranked(cands: list[MemoryCandidate], **options: Any) -> list[MemoryHit]:
    settings = {"top_k": 5, "min_score": 0.0, "relative_cutoff": 0.0, "rules": (), "recency_decay": 0.0, **options}
    return rank(cands, now=NOW, **settings)


# ------------------------------------------------------------------------------------------- min_score
def test_a_bonus_lifts_a_hit_over_min_score_that_its_similarity_misses() -> None:
    # Given similarity 0.35 under a floor of 0.4, in a namespace with a 0.3 bonus (relevance 0.455)
    hits = ranked([candidate("lifted", 0.35, FAVOURED)], min_score=0.4, rules=BONUS)
    # Then the hit is kept, with its relevance
    assert ids(hits) == ["lifted"]
    assert abs(hits[0].relevance - 0.455) < 1e-9


def test_recency_lifts_a_fresh_hit_over_min_score_that_its_similarity_misses() -> None:
    # Given two hits of similarity 0.35 under a floor of 0.4, one stored now, one 1000 days ago
    cands = [candidate("fresh", 0.35, age=timedelta(0)), candidate("old", 0.35, age=timedelta(days=1000))]
    # When recency counts 0.3 (fresh: relevance 0.455; old: ≈ 0.350)
    hits = ranked(cands, min_score=0.4, recency_decay=0.3)
    # Then only the fresh one clears the floor
    assert ids(hits) == ["fresh"]


def test_a_penalty_drops_a_hit_under_min_score_that_its_similarity_clears() -> None:
    # Given similarity 0.45 over a floor of 0.4, in a namespace with a −0.2 bonus (relevance 0.36)
    rules = (NamespaceRule(pattern=FAVOURED, bonus=-0.2),)
    hits = ranked([candidate("demoted", 0.45, FAVOURED), candidate("plain", 0.45)], min_score=0.4, rules=rules)
    # Then it is dropped, the plain one of the same similarity kept
    assert ids(hits) == ["plain"]


# ------------------------------------------------------------------------------------- relative cutoff
def test_a_bonus_keeps_a_hit_over_the_cutoff_that_its_similarity_misses() -> None:
    # Given the best hit at relevance 0.8, and one of similarity 0.5 whose bonus makes relevance 0.65
    cands = [candidate("best", 0.8), candidate("lifted", 0.5, FAVOURED)]
    # When the cutoff is 0.7 of the best (0.56: the similarity is under it, the relevance over it)
    hits = ranked(cands, relative_cutoff=0.7, rules=BONUS)
    # Then both are kept
    assert ids(hits) == ["best", "lifted"]


def test_the_best_hits_bonus_raises_the_cutoff_over_a_similarity_that_clears_it() -> None:
    # Given the best hit at similarity 0.6 with a 0.5 bonus (relevance 0.9), and a plain hit of 0.5
    rules = (NamespaceRule(pattern=FAVOURED, bonus=0.5),)
    cands = [candidate("best", 0.6, FAVOURED), candidate("plain", 0.5)]
    # When the cutoff is 0.7 of the best (0.63 of relevance; 0.42 of the best's similarity)
    hits = ranked(cands, relative_cutoff=0.7, rules=rules)
    # Then the plain hit (relevance 0.5) is dropped
    assert ids(hits) == ["best"]


def test_recency_of_the_best_hit_raises_the_cutoff() -> None:
    # Given a fresh best hit (similarity 0.6, relevance 0.6 × 1.5 = 0.9) and an old one of similarity 0.5
    cands = [candidate("fresh", 0.6, age=timedelta(0)), candidate("old", 0.5)]
    # When the cutoff is 0.7 of the best
    hits = ranked(cands, relative_cutoff=0.7, recency_decay=0.5)
    # Then the old one (relevance ≈ 0.50 < 0.63) is dropped
    assert ids(hits) == ["fresh"]
