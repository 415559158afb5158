"""Pure parts of hybrid recall and chunking (issues 13.4, 11.3): fusion scores, chunk cuts, model limits."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mneme.errors import EmbeddingInputTooLong
from mneme.memory.chunking import chunk_ids, split
from mneme.memory.embedding_limits import LOCAL_MINILM, TITAN_V2, UNKNOWN, clip_query, limit_for
from mneme.memory.fusion import fuse, normalized_keyword
from mneme.memory.keywords import query_words
from mneme.models.memory import MemoryCandidate, MemoryDocument

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _c(doc_id: str, score: float) -> MemoryCandidate:
    doc = MemoryDocument(
        id=doc_id,
        namespace="vector.user.a.memory",
        owner_user_id="a",
        content=doc_id,
        content_hash=doc_id,
        created_at=NOW,
        updated_at=NOW,
    )
    return MemoryCandidate(document=doc, similarity=score)


def test_rrf_gives_one_to_the_first_of_both_legs_and_half_to_the_first_of_one() -> None:
    fused = fuse([_c("a", 0.9), _c("b", 0.8)], [_c("a", 12.0), _c("c", 3.0)], method="rrf")
    scores = {c.document.id: c.similarity for c in fused}
    assert scores["a"] == pytest.approx(1.0)
    assert scores["c"] == pytest.approx((1 / 62) / (2 / 61)) and scores["b"] == scores["c"]
    assert fused[0].document.id == "a"


def test_fusion_keeps_each_legs_score() -> None:
    [a, b] = fuse([_c("a", 0.9)], [_c("b", 5.0)])
    assert (a.vector_similarity, a.keyword_score) in ((0.9, None), (None, 5.0))
    assert {a.document.id, b.document.id} == {"a", "b"}


def test_score_fusion_averages_the_cosine_and_the_normalized_bm25() -> None:
    fused = {c.document.id: c.similarity for c in fuse([_c("a", 0.6)], [_c("a", 4.0), _c("b", 2.0)], method="score")}
    assert fused == {"a": pytest.approx(0.8), "b": pytest.approx(0.25)}


def test_keyword_scores_are_fractions_of_the_best() -> None:
    assert [c.similarity for c in normalized_keyword([_c("a", 8.0), _c("b", 2.0)])] == [1.0, 0.25]
    assert normalized_keyword([]) == []


def test_split_cuts_at_sentence_boundaries_within_the_size() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(200))
    chunks = split(text, 500)
    assert all(len(c) <= 500 for c in chunks) and all(c.endswith(".") for c in chunks)
    assert " ".join(chunks) == text


def test_short_content_is_one_chunk_and_a_long_word_is_cut() -> None:
    assert split("  short  ", 100) == ["short"]
    assert [len(c) for c in split("x" * 250, 100)] == [100, 100, 50]


def test_chunk_ids_are_deterministic_and_keep_the_first() -> None:
    assert chunk_ids("doc", 3) == chunk_ids("doc", 3) and chunk_ids("doc", 3)[0] == "doc"
    assert len(set(chunk_ids("doc", 3))) == 3


def test_limits_by_model_and_a_conservative_default() -> None:
    assert limit_for("amazon.titan-embed-text-v2:0") is TITAN_V2
    assert limit_for("all-MiniLM-L6-v2") is LOCAL_MINILM and limit_for("who-knows") is UNKNOWN
    assert TITAN_V2.chunk_chars <= TITAN_V2.max_tokens  # a chunk fits the token limit at one token per character


def test_the_limit_raises_like_titan_above_it() -> None:
    TITAN_V2.check("x" * 50_000)
    with pytest.raises(EmbeddingInputTooLong, match="50,000"):
        TITAN_V2.check("x" * 50_001)
    assert len(clip_query("y" * 60_000, TITAN_V2)) == 50_000


def test_query_words_drop_function_words_but_never_everything() -> None:
    assert query_words("What is my sister's name?") == ["sister", "name"]
    assert query_words("who is it") == ["who", "is", "it"]
