"""The fusion's calibrated relevance when nothing vouches for a query (issue 30): the candidates keep their order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mneme.memory import calibration, hybrid
from mneme.memory.keyword_scoring import Bm25
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryDocument

NOW = datetime(2024, 6, 1, tzinfo=UTC)


def _candidate(doc_id: str, content_hash: str, cosine: float) -> MemoryCandidate:
    doc = MemoryDocument(
        id=doc_id, namespace="vector.user.a.memory", owner_user_id="a", content=f"{doc_id} said something long enough",
        content_hash=content_hash, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return MemoryCandidate(document=doc, similarity=cosine)


def _fused(confidence: float) -> list[MemoryCandidate]:
    # the closest by cosine has the largest content hash: a tie in relevance would put it last
    vector = [_candidate("near", "c", 0.3), _candidate("mid", "b", 0.2), _candidate("far", "a", 0.1)]
    bm25 = Bm25(["unrelated"], KeywordMatches(documents=[], total_documents=3, total_chars=90, doc_freq={}))
    return hybrid.fuse(vector, [], bm25, {}, vector_confidence=confidence)


def test_a_query_without_confidence_still_ranks_its_candidates_in_fused_order() -> None:
    fused = _fused(0.0)
    assert [c.document.id for c in fused] == ["near", "mid", "far"]
    assert all(0 < c.similarity <= hybrid.MIN_CONFIDENCE for c in fused)  # under any floor


def test_a_confident_query_ranks_them_the_same() -> None:
    assert [c.document.id for c in _fused(0.8)] == ["near", "mid", "far"]
    assert _fused(0.8)[0].similarity > hybrid.MIN_CONFIDENCE


def _with_bonus(bonus: dict[str, float] | None) -> list[MemoryCandidate]:
    vector = [_candidate("near", "c", 0.3), _candidate("mid", "b", 0.25), _candidate("far", "a", 0.1)]
    bm25 = Bm25(["unrelated"], KeywordMatches(documents=[], total_documents=3, total_chars=90, doc_freq={}))
    return hybrid.fuse(vector, [], bm25, {}, vector_confidence=0.8, vector_bonus=bonus)


def test_a_vector_bonus_ranks_its_candidate_as_if_its_cosine_were_that_much_higher() -> None:
    assert [c.document.id for c in _with_bonus({"mid": 0.1})] == ["mid", "near", "far"]


def test_without_a_bonus_the_cosines_decide() -> None:
    assert [c.document.id for c in _with_bonus(None)] == ["near", "mid", "far"]


def test_a_bonus_leaves_the_reported_cosine_as_it_was() -> None:
    mid = next(c for c in _with_bonus({"mid": 0.1}) if c.document.id == "mid")
    assert mid.vector_similarity == 0.25


def test_a_confident_query_s_last_candidate_keeps_the_root_of_half_its_confidence() -> None:
    last = _fused(0.8)[-1]  # its fused score is the lowest (scaled to 0), its content counts whole
    assert last.similarity == 0.8 * 0.5**0.5  # the default floor 0.35 keeps it: half (0.4) is close to it


def test_the_best_candidate_scores_the_query_s_confidence() -> None:
    assert _fused(0.8)[0].similarity == 0.8


def test_a_candidate_s_share_rises_with_its_fused_score_and_its_content() -> None:
    text = "Kate: adopted a beagle puppy named Biscuit"
    assert hybrid.share(0.0, text) < hybrid.share(0.5, text) < hybrid.share(1.0, text) == 1.0
    assert hybrid.share(1.0, "Kate: Hey!") < hybrid.share(1.0, text)


def _three_of_five() -> tuple[list[tuple[MemoryDocument, float]], Bm25]:
    """A memory holding 3 of a question's 5 equally rare words: 0.6 of its idf mass."""
    words = ["beagle", "puppy", "biscuit", "harbour", "lantern"]
    doc = _candidate("kate", "k", 0.0).document.model_copy(update={"content": "Kate: our beagle puppy Biscuit"})
    matches = KeywordMatches(documents=[doc], total_documents=20, total_chars=600, doc_freq=dict.fromkeys(words, 1))
    bm25 = Bm25(words, matches)
    assert bm25.coverage(bm25.counts_of(doc)) == 0.6
    return [(doc, 1.0)], bm25


def test_in_the_keyword_mode_a_memory_with_most_of_the_question_s_rare_words_passes_the_default_floor() -> None:
    turns, bm25 = _three_of_five()
    confidence = (0.6 - hybrid.KEYWORD_MODE_COVERAGE_FLOOR) / (1 - hybrid.KEYWORD_MODE_COVERAGE_FLOOR)
    assert hybrid.keyword_only(turns, bm25)[0].similarity == confidence > 0.35


def test_beside_the_vector_the_same_coverage_vouches_for_less() -> None:
    assert hybrid.keyword_confidence(0.6) == (0.6 - 0.5) / 0.5 < 0.35


def test_a_long_passage_s_cosine_counts_more_as_evidence_per_doubling_of_its_length() -> None:
    lift, start = calibration.LENGTH_LIFT["all-MiniLM-L6-v2"]
    assert calibration.evidence_cosine("all-MiniLM-L6-v2", 0.4, 2 * start) == 0.4 + lift
    assert calibration.evidence_cosine("all-MiniLM-L6-v2", 0.4, 4 * start) == 0.4 + 2 * lift


def test_a_passage_up_to_the_lift_s_length_keeps_its_cosine() -> None:
    _lift, start = calibration.LENGTH_LIFT["all-MiniLM-L6-v2"]
    assert calibration.evidence_cosine("all-MiniLM-L6-v2", 0.4, start) == 0.4
    assert calibration.evidence_cosine("all-MiniLM-L6-v2", 0.4, 20) == 0.4


def test_a_model_without_a_measured_lift_keeps_a_long_passage_s_cosine() -> None:
    assert calibration.evidence_cosine("amazon.titan-embed-text-v2:0", 0.4, 8_000) == 0.4
    assert calibration.evidence_cosine("hashing", 0.4, 8_000) == 0.4


def test_a_best_cosine_standing_out_of_the_others_is_confident() -> None:
    confidence = calibration.standout_confidence("all-MiniLM-L6-v2", 0.46, [0.05, -0.02, 0.03])
    assert confidence == pytest.approx(0.933, abs=0.001)


def test_a_best_cosine_among_others_as_close_is_not() -> None:
    assert calibration.standout_confidence("all-MiniLM-L6-v2", 0.46, [0.4, 0.35, 0.33]) == 0.0


def test_a_best_cosine_under_the_model_s_least_stands_out_of_nothing() -> None:
    assert calibration.standout_confidence("all-MiniLM-L6-v2", 0.25, [-0.1, -0.1]) == 0.0


def test_a_single_candidate_stands_above_zero() -> None:
    assert calibration.standout_confidence("all-MiniLM-L6-v2", 0.45, []) == 1.0


def test_a_model_without_a_measured_stand_out_has_none() -> None:
    assert calibration.standout_confidence("amazon.titan-embed-text-v2:0", 0.9, [0.0]) == 0.0


def test_a_cosine_the_scale_says_nothing_of_does_not_stand_out() -> None:
    assert calibration.standout_confidence("all-MiniLM-L6-v2", 0.34, [0.1, 0.1, 0.05]) == 0.0


def test_one_memory_near_the_question_and_holding_part_of_its_words_vouches_by_both() -> None:
    cosine_from, cosine_to, _words_from, words_to = calibration.JOINT["all-MiniLM-L6-v2"]
    assert calibration.joint_confidence("all-MiniLM-L6-v2", [(cosine_to, words_to)]) == 1.0
    assert 0.0 < calibration.joint_confidence("all-MiniLM-L6-v2", [((cosine_from + cosine_to) / 2, words_to)]) < 1.0


def test_the_cosine_of_one_memory_and_the_words_of_another_do_not_add_up() -> None:
    cosine_from, cosine_to, words_from, words_to = calibration.JOINT["all-MiniLM-L6-v2"]
    assert calibration.joint_confidence("all-MiniLM-L6-v2", [(cosine_to, words_from), (cosine_from, words_to)]) == 0.0


def test_a_model_without_a_measured_joint_scale_has_none() -> None:
    assert calibration.joint_confidence("amazon.titan-embed-text-v2:0", [(0.9, 1.0)]) == 0.0
