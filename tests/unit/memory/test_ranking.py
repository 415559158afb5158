"""Ranking of memory candidates (SPEC §5.3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Sequence

from mneme.memory.ranking import Dropped, age_days, k_for, rank, rank_explained, relevance
from mneme.models.memory import MemoryCandidate, MemoryDocument, MemoryHit, NamespaceRule

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def candidate(
    doc_id: str,
    similarity: float,
    *,
    content: str | None = None,
    namespace: str = "vector.user.alice.memory",
    age: timedelta = timedelta(days=1000),
    **extra: Any,
) -> MemoryCandidate:
    created = NOW - age
    doc = MemoryDocument(
        id=doc_id,
        namespace=namespace,
        owner_user_id="alice",
        content=content if content is not None else f"content of {doc_id}",
        content_hash="h",
        created_at=created,
        updated_at=created,
        **extra,
    )
    return MemoryCandidate(document=doc, similarity=similarity)


def ranked(
    cands: Sequence[MemoryCandidate],
    *,
    top_k: int = 5,
    min_score: float = 0.0,
    relative_cutoff: float = 0.0,
    rules: Sequence[NamespaceRule] = (),
    recency_decay: float = 0.0,
) -> list[MemoryHit]:
    return rank(
        cands,
        now=NOW,
        top_k=top_k,
        min_score=min_score,
        relative_cutoff=relative_cutoff,
        rules=rules,
        recency_decay=recency_decay,
    )


def test_k_is_four_times_top_k() -> None:
    # Given top_k 5 / When the candidate count is asked / Then 20
    assert k_for(5) == 20


@pytest.mark.parametrize(
    ("similarity", "namespace", "age", "rules", "decay", "expected"),
    [
        (0.8, "vector.user.alice.memory", timedelta(0), (), 0.05, 0.8 * 1.05),  # fresh: full recency bonus
        (0.8, "vector.user.alice.memory", timedelta(days=1), (), 0.05, 0.8 * (1 + 0.05 / 2)),
        (0.8, "vector.user.alice.memory", timedelta(hours=12), (), 0.05, 0.8 * (1 + 0.05 / 1.5)),
        (
            0.5,
            "vector.global.howto",
            timedelta(days=3),
            (
                NamespaceRule(pattern="vector.global.*", bonus=0.2),
                NamespaceRule(pattern="vector.global.howto", bonus=0.1),
            ),
            0.05,
            0.5 * (1 + 0.3 + 0.05 / 4),
        ),  # every matching rule's bonus is summed
        (
            0.5,
            "vector.user.alice.memory",
            timedelta(days=3),
            (NamespaceRule(pattern="vector.global.*", bonus=0.2),),
            0.0,
            0.5,
        ),  # a rule that does not match adds nothing
        (0.8, "vector.user.alice.memory", -timedelta(days=2), (), 0.05, 0.8 * 1.05),  # future: age 0
    ],
)
def test_relevance_formula(
    similarity: float,
    namespace: str,
    age: timedelta,
    rules: tuple[NamespaceRule, ...],
    decay: float,
    expected: float,
) -> None:
    # Given a candidate's similarity, namespace and age / When its relevance is computed
    value = relevance(similarity, namespace, NOW - age, now=NOW, rules=rules, recency_decay=decay)
    # Then similarity × (1 + Σ bonus + decay / (1 + age_days))
    assert value == pytest.approx(expected)


def test_age_is_fractional_days_and_never_negative() -> None:
    # Given timestamps / When the age is computed / Then fractional days, 0 for the future, naive = UTC
    assert age_days(NOW - timedelta(hours=6), NOW) == pytest.approx(0.25)
    assert age_days(NOW + timedelta(days=1), NOW) == 0.0
    assert age_days(datetime(2026, 11, 29, 12, 0), NOW) == pytest.approx(1.0)


def test_hits_are_sorted_by_relevance_with_bonus_and_recency() -> None:
    # Given a lower similarity in a bonus namespace, and a newer equal-similarity candidate
    cands = [
        candidate("old", 0.7, age=timedelta(days=100)),
        candidate("new", 0.7, age=timedelta(0)),
        candidate("bonus", 0.65, namespace="vector.global.howto"),
    ]
    # When ranked with a bonus rule and recency
    hits = ranked(cands, rules=(NamespaceRule(pattern="vector.global.*", bonus=0.2),), recency_decay=0.05)
    # Then the bonus and the recency decide the order, and relevance is reported
    assert [h.id for h in hits] == ["bonus", "new", "old"]
    assert hits[0].relevance == pytest.approx(0.65 * (1.2 + 0.05 / 1001))
    assert hits[0].similarity == 0.65


def test_hits_below_min_score_are_dropped() -> None:
    # Given candidates around the floor / When ranked with min_score 0.4
    hits = ranked([candidate("a", 0.9), candidate("b", 0.4), candidate("c", 0.39)], min_score=0.4)
    # Then only those at or above it remain
    assert [h.id for h in hits] == ["a", "b"]


def test_identical_content_is_deduped_first_wins() -> None:
    # Given two entries with the same content, the second more relevant
    cands = [
        candidate("weak", 0.6, content="the same fact"),
        candidate("strong", 0.9, content="the same fact "),
        candidate("other", 0.5),
    ]
    # When ranked / Then the first after sorting (the most relevant) is kept, once
    assert [h.id for h in ranked(cands)] == ["strong", "other"]


def test_dedupe_tie_is_deterministic() -> None:
    # Given identical content, relevance and age / When ranked in either input order
    a, b = candidate("a", 0.8, content="x"), candidate("b", 0.8, content="x")
    # Then the same one wins (smaller id)
    assert [h.id for h in ranked([b, a])] == [h.id for h in ranked([a, b])] == ["a"]


def test_relative_cutoff_drops_hits_far_below_the_best() -> None:
    # Given relevances 1.0, 0.7, 0.69 / When ranked with relative_cutoff 0.7
    hits = ranked([candidate("a", 1.0), candidate("b", 0.7), candidate("c", 0.69)], relative_cutoff=0.7)
    # Then hits ≥ best × 0.7 remain
    assert [h.id for h in hits] == ["a", "b"]


def test_relative_cutoff_zero_is_off() -> None:
    # Given a wide spread / When ranked with relative_cutoff 0 / Then nothing is cut
    assert len(ranked([candidate("a", 1.0), candidate("b", 0.01)], relative_cutoff=0)) == 2


def test_at_most_top_k_hits_are_returned() -> None:
    # Given 10 candidates / When ranked with top_k 3 / Then the best 3
    hits = ranked([candidate(f"d{i}", 0.5 + i / 100) for i in range(10)], top_k=3)
    assert [h.id for h in hits] == ["d9", "d8", "d7"]


def test_deleted_superseded_and_expired_candidates_are_ignored() -> None:
    # Given candidates the store should have filtered / When ranked / Then they never become hits
    cands = [
        candidate("ok", 0.5),
        candidate("del", 0.9, deleted=True),
        candidate("sup", 0.9, superseded=True),
        candidate("exp", 0.9, expires_at=NOW - timedelta(seconds=1)),
        candidate("live", 0.6, expires_at=NOW + timedelta(days=1)),
    ]
    assert [h.id for h in ranked(cands)] == ["live", "ok"]


def test_hits_carry_document_fields() -> None:
    # Given a candidate with metadata / When ranked / Then the hit carries id, namespace, content, metadata
    hit = ranked([candidate("a", 0.8, metadata={"source": "run_output"})])[0]
    assert (hit.id, hit.namespace, hit.content, hit.metadata) == (
        "a",
        "vector.user.alice.memory",
        "content of a",
        {"source": "run_output"},
    )


def test_no_candidates_no_hits() -> None:
    # Given nothing / When ranked / Then nothing
    assert ranked([]) == []


# ------------------------------------------------------------------ why the other candidates were dropped
def explained(cands: Sequence[MemoryCandidate], **thresholds: Any) -> tuple[list[str], dict[str, int], int]:
    result = rank_explained(
        cands,
        now=NOW,
        top_k=thresholds.get("top_k", 5),
        min_score=thresholds.get("min_score", 0.0),
        relative_cutoff=thresholds.get("relative_cutoff", 0.0),
        recency_decay=0.0,
    )
    return [h.id for h in result.hits], result.dropped.as_dict(), result.candidates


def test_candidates_below_min_score_are_counted_as_dropped_by_it() -> None:
    # Given two candidates under the floor and one above / When ranked with min_score 0.4
    ids, dropped, total = explained([candidate("a", 0.9), candidate("b", 0.39), candidate("c", 0.1)], min_score=0.4)
    # Then one hit, and the two others are counted under min_score only
    assert ids == ["a"] and total == 3
    assert dropped == {**Dropped().as_dict(), "min_score": 2}


def test_nothing_is_counted_as_dropped_when_every_candidate_is_a_hit() -> None:
    # Given candidates that pass every rule / When ranked / Then every count is 0
    ids, dropped, _ = explained([candidate("a", 0.9), candidate("b", 0.8)], min_score=0.4, relative_cutoff=0.7)
    assert ids == ["a", "b"]
    assert set(dropped.values()) == {0}


def test_duplicate_content_is_counted_once_per_extra_copy() -> None:
    # Given the same content three times (surrounding whitespace differs) and one other entry
    cands = [
        candidate("a", 0.9, content="tea"),
        candidate("b", 0.8, content=" tea "),
        candidate("c", 0.7, content="tea\n"),
        candidate("d", 0.6),
    ]
    # When ranked / Then the best copy stays and two are counted as duplicates
    ids, dropped, _ = explained(cands)
    assert ids == ["a", "d"] and dropped["duplicate"] == 2


def test_hits_far_below_the_best_are_counted_under_relative_cutoff_not_top_k() -> None:
    # Given relevances 1.0, 0.7, 0.5, 0.2 / When ranked with relative_cutoff 0.7 and top_k 5
    ids, dropped, _ = explained(
        [candidate("a", 1.0), candidate("b", 0.7), candidate("c", 0.5), candidate("d", 0.2)], relative_cutoff=0.7
    )
    # Then two fell under the cutoff and none was cut by top_k
    assert ids == ["a", "b"] and (dropped["relative_cutoff"], dropped["top_k"]) == (2, 0)


def test_hits_beyond_top_k_are_counted_under_top_k() -> None:
    # Given six passing candidates / When ranked with top_k 4 / Then two are counted under top_k
    ids, dropped, total = explained([candidate(f"d{i}", 0.9 - i / 100) for i in range(6)], top_k=4)
    assert len(ids) == 4 and dropped["top_k"] == 2 and total == 6


def test_unusable_candidates_are_counted_apart_from_the_ranking_rules() -> None:
    # Given a deleted and an expired candidate beside a live one / When ranked
    cands = [candidate("ok", 0.5), candidate("del", 0.9, deleted=True), candidate("exp", 0.9, expires_at=NOW)]
    ids, dropped, _ = explained(cands)
    # Then both are counted as unusable, not as below min_score
    assert ids == ["ok"] and (dropped["unusable"], dropped["min_score"]) == (2, 0)


def test_every_candidate_is_either_a_hit_or_counted_once() -> None:
    # Given a mix that trips every rule / When ranked
    cands = [
        candidate("a", 1.0),
        candidate("a2", 0.95, content="content of a"),
        candidate("b", 0.9),
        candidate("c", 0.85),
        candidate("low", 0.1),
        candidate("cut", 0.5),
        candidate("gone", 0.9, superseded=True),
    ]
    ids, dropped, total = explained(cands, top_k=2, min_score=0.3, relative_cutoff=0.6)
    # Then hits + drops account for all seven
    assert ids == ["a", "b"]
    assert dropped == {"unusable": 1, "min_score": 1, "duplicate": 1, "relative_cutoff": 1, "top_k": 1}
    assert len(ids) + sum(dropped.values()) == total == 7


def test_rank_answers_the_same_hits_as_rank_explained() -> None:
    cands = [candidate(f"d{i}", 0.3 + i / 20) for i in range(10)]
    explained_ids, _, _ = explained(cands, top_k=3, min_score=0.4, relative_cutoff=0.8)
    assert [h.id for h in ranked(cands, top_k=3, min_score=0.4, relative_cutoff=0.8)] == explained_ids


def test_the_same_words_said_on_two_dates_are_one_hit() -> None:
    cands = [
        candidate("a", 0.9, content="[8 May 2023] Kate: Work's fine."),
        candidate("b", 0.8, content="[9 June 2023] Kate: Work's fine."),
    ]
    ids, dropped, _ = explained(cands)
    assert ids == ["a"] and dropped["duplicate"] == 1


def test_other_words_on_the_same_date_are_two_hits() -> None:
    cands = [
        candidate("a", 0.9, content="[8 May 2023] Kate: Work's fine."),
        candidate("b", 0.8, content="[8 May 2023] Kate: Work's slow."),
    ]
    assert explained(cands)[0] == ["a", "b"]
