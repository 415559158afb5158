"""The reranking stage (mneme.memory.rerank): the model's order and scores, its depth, its floor, its failure."""

from __future__ import annotations

from datetime import UTC, datetime

from mneme.errors import RerankUnavailable
from mneme.memory import rerank
from mneme.models.memory import MemoryCandidate, MemoryDocument
from tests.fakes.reranker import TableReranker

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _candidate(text: str, similarity: float) -> MemoryCandidate:
    document = MemoryDocument(
        id=text.split(maxsplit=1)[0],
        namespace="vector.user.alice.memory",
        owner_user_id="alice",
        content=text,
        content_hash=text,
        created_at=NOW,
        updated_at=NOW,
    )
    return MemoryCandidate(document=document, similarity=similarity)


FIRST_STAGE = [_candidate("a greeting only", 0.9), _candidate("b the answer", 0.8), _candidate("c related", 0.7)]


def test_the_model_orders_the_candidates_and_its_scores_become_their_similarity():
    reranker = TableReranker({"b the answer": 0.92, "c related": 0.4, "a greeting only": 0.01})
    ordered, status = rerank.apply(reranker, "what is the answer", FIRST_STAGE, top_k=5)
    assert [c.document.id for c in ordered] == ["b", "c", "a"]
    assert [c.similarity for c in ordered] == [0.92, 0.4, 0.01]
    assert status == "amazon.rerank-v1:0"


def test_equal_scores_keep_the_first_stage_order():
    ordered, _ = rerank.apply(TableReranker({}, default=0.5), "q", FIRST_STAGE, top_k=5)
    assert [c.document.id for c in ordered] == ["a", "b", "c"]


def test_only_the_depth_is_sent_and_returned():
    many = [_candidate(f"d{i} text", 1 - i / 100) for i in range(rerank.DEPTH + 5)]
    reranker = TableReranker({}, default=0.5)
    ordered, _ = rerank.apply(reranker, "q", many, top_k=5)
    assert len(reranker.calls[0][1]) == rerank.DEPTH
    assert len(ordered) == rerank.DEPTH


def test_a_top_k_above_the_depth_sends_top_k():
    many = [_candidate(f"d{i} text", 1 - i / 100) for i in range(rerank.DEPTH + 5)]
    reranker = TableReranker({}, default=0.5)
    rerank.apply(reranker, "q", many, top_k=rerank.DEPTH + 3)
    assert len(reranker.calls[0][1]) == rerank.DEPTH + 3


def test_a_failing_reranker_leaves_the_first_stage_and_says_why():
    reranker = TableReranker({})
    reranker.fail = RerankUnavailable("Bedrock Rerank failed: ThrottlingException")
    ordered, status = rerank.apply(reranker, "q", FIRST_STAGE, top_k=5)
    assert ordered == FIRST_STAGE
    assert status == "failed: Bedrock Rerank failed: ThrottlingException"


def test_without_a_reranker_or_candidates_nothing_is_called():
    assert rerank.apply(None, "q", FIRST_STAGE, top_k=5) == (FIRST_STAGE, None)
    reranker = TableReranker({})
    assert rerank.apply(reranker, "q", [], top_k=5) == ([], None)
    assert reranker.calls == []


def test_scores_outside_zero_to_one_are_clipped():
    ordered, _ = rerank.apply(TableReranker({"b the answer": 1.7}, default=-0.2), "q", FIRST_STAGE, top_k=5)
    assert [c.similarity for c in ordered] == [1.0, 0.0, 0.0]


def test_each_model_has_its_floor_and_an_arn_names_its_model():
    assert rerank.floor("amazon.rerank-v1:0") == rerank.FLOORS["amazon.rerank-v1:0"]
    arn = "arn:aws:bedrock:us-west-2::foundation-model/cohere.rerank-v3-5:0"
    assert rerank.floor(arn) == rerank.FLOORS["cohere.rerank-v3-5:0"]
