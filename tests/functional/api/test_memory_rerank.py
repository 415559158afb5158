"""The reranking stage where it is wired (issue 30.1): memory search over HTTP and a run's auto-inject order their
hits by the reranking model, apply its floor, and survive its failure with the first stage's order."""

from __future__ import annotations

from typing import Any

from mneme.errors import RerankUnavailable
from mneme.memory import rerank
from tests.fakes.reranker import TableReranker
from tests.functional.api.conftest import Api
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "which tea does alice drink in the morning"
CHAT = "Alice: Good morning to you too!"
ANSWER = "Alice: Green tea, always, before work."
ASIDE = "Alice: The kettle broke last week."


def _three(world: World) -> dict[str, str]:
    """Three entries the first stage ranks chat > aside > answer."""
    return {
        text: remember_at(world, ALICE, text, query=QUERY, similarity=similarity)
        for text, similarity in ((CHAT, 0.9), (ASIDE, 0.8), (ANSWER, 0.7))
    }


def _search(api: Api) -> list[dict[str, Any]]:
    reply = api.post("/v1/memory/search", {"query": QUERY, "namespaces": [ALICE], "top_k": 5, "retrieval": "vector"})
    assert reply.status == 200, reply.text
    return list(reply.body["hits"])


def test_search_answers_in_the_reranking_models_order_with_its_scores(api: Api, world: World) -> None:
    ids = _three(world)
    world.deps.reranker = reranker = TableReranker({ANSWER: 0.93, ASIDE: 0.35, CHAT: 0.2})
    hits = _search(api)
    assert [hit["id"] for hit in hits] == [ids[ANSWER], ids[ASIDE], ids[CHAT]]
    assert [hit["similarity"] for hit in hits] == [0.93, 0.35, 0.2]
    assert reranker.calls == [(QUERY, [CHAT, ASIDE, ANSWER])]  # the first stage's order, the query as asked


def test_without_a_reranker_the_first_stage_order_stands(api: Api, world: World) -> None:
    ids = _three(world)
    assert [hit["id"] for hit in _search(api)] == [ids[CHAT], ids[ASIDE], ids[ANSWER]]


def test_the_reranking_models_floor_drops_what_it_scores_below_it(api: Api, world: World) -> None:
    ids = _three(world)
    below = rerank.floor("amazon.rerank-v1:0") / 2
    world.deps.reranker = TableReranker({ANSWER: 0.9, ASIDE: below, CHAT: below})
    assert [hit["id"] for hit in _search(api)] == [ids[ANSWER]]


def test_a_failing_reranker_answers_the_first_stage_not_an_error(api: Api, world: World) -> None:
    ids = _three(world)
    world.deps.reranker = reranker = TableReranker({})
    reranker.fail = RerankUnavailable("Bedrock Rerank failed: ThrottlingException")
    assert [hit["id"] for hit in _search(api)] == [ids[CHAT], ids[ASIDE], ids[ANSWER]]


def test_a_runs_auto_inject_is_reranked_and_its_event_names_the_model(world: World) -> None:
    add_agent(world, memory_policy={"retrieval": "vector"})
    ids = _three(world)
    world.deps.reranker = TableReranker({ANSWER: 0.9, ASIDE: 0.3, CHAT: 0.2})
    result = run(world, QUERY)
    (event,) = [e.data for e in world.deps.runs.list_events(result.run.run_id) if e.type == "memory_hits"]
    assert [hit["id"] for hit in event["hits"]] == [ids[ANSWER], ids[ASIDE], ids[CHAT]]
    assert event["rerank"] == "amazon.rerank-v1:0"
    assert event["thresholds"]["min_score"] == rerank.floor("amazon.rerank-v1:0")


def test_a_runs_event_says_when_the_reranker_failed(world: World) -> None:
    add_agent(world, memory_policy={"retrieval": "vector"})
    _three(world)
    world.deps.reranker = reranker = TableReranker({})
    reranker.fail = RerankUnavailable("Bedrock Rerank failed: AccessDeniedException")
    result = run(world, QUERY)
    (event,) = [e.data for e in world.deps.runs.list_events(result.run.run_id) if e.type == "memory_hits"]
    assert event["rerank"] == "failed: Bedrock Rerank failed: AccessDeniedException"
    assert event["count"] == 3
