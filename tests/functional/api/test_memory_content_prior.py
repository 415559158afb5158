"""The content factor where it is wired (issue 30.1): the hybrid search over HTTP ranks a memory that says
something above a short turn that shares the query's word and is closer by vector."""

from __future__ import annotations

import pytest

from mneme.memory import hybrid
from mneme.memory.content_prior import content_factor
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "pottery"


def _two_turns(world: World) -> tuple[str, str]:
    short = remember_at(world, ALICE, "Kate: Pottery?", query=QUERY, similarity=0.7)
    said = remember_at(world, ALICE, "Kate: I took a pottery class downtown.", query=QUERY, similarity=0.6)
    return short, said


def _hits(api: Api, **body: object) -> list[dict[str, object]]:
    reply = api.post("/v1/memory/search", {"query": QUERY, "namespaces": [ALICE], "top_k": 5, **body})
    assert reply.status == 200, reply.text
    return list(reply.body["hits"])


def test_the_turn_that_says_something_ranks_above_a_closer_short_one(api: Api, world: World) -> None:
    short, said = _two_turns(world)
    assert [hit["id"] for hit in _hits(api)] == [said, short]


def test_without_the_content_factor_the_short_turn_would_win(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, said = _two_turns(world)
    monkeypatch.setattr(hybrid, "content_factor", lambda _text: 1.0)
    assert [hit["id"] for hit in _hits(api)] == [short, said]


def test_the_keyword_mode_weighs_content_too(api: Api, world: World) -> None:
    short, said = _two_turns(world)
    assert [hit["id"] for hit in _hits(api, retrieval="keyword")] == [said, short]


def test_the_vector_mode_keeps_the_cosine_order(api: Api, world: World) -> None:
    short, said = _two_turns(world)
    assert [hit["id"] for hit in _hits(api, retrieval="vector")] == [short, said]


def test_without_the_content_factor_the_keyword_mode_would_rank_the_short_turn_first(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, said = _two_turns(world)
    monkeypatch.setattr(hybrid, "content_factor", lambda _text: 1.0)
    assert [hit["id"] for hit in _hits(api, retrieval="keyword")] == [short, said]


def test_explain_shows_each_hits_content_factor(api: Api, world: World) -> None:
    short, said = _two_turns(world)
    reply = api.post("/v1/memory/search", {"query": QUERY, "namespaces": [ALICE], "explain": True})
    factors = {hit["id"]: hit["scores"]["content"] for hit in reply.body["explanation"]["hits"]}
    assert factors == {said: 1.0, short: pytest.approx(content_factor("Kate: Pottery?"), abs=1e-4)}
    assert factors[short] < 1.0


def test_explain_of_a_vector_search_shows_no_content_factor(api: Api, world: World) -> None:
    _two_turns(world)
    body = {"query": QUERY, "namespaces": [ALICE], "explain": True, "retrieval": "vector"}
    hits = api.post("/v1/memory/search", body).body["explanation"]["hits"]
    assert [hit["scores"]["content"] for hit in hits] == [None, None]
