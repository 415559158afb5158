"""A long memory's cosine counts for more as the question's evidence (``mneme.memory.calibration.LENGTH_LIFT``, issue
30), through ``POST /v1/memory/search`` with the floor auto-inject applies, and explain's ``confidence``.

The fake embedder's model has no measured lift; the tests that need one give it MiniLM's. The question shares no
word with the memories, so its cosine is all that vouches for it: 0.25 under the fake's scale (0.1, 0.6) is a
confidence of 0.30, under the floor; a 900-character memory lifts it to 0.25 + 0.075 × log2(3) = 0.369, a
confidence of 0.54."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.memory import calibration
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember, remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
FLOOR = 0.35  # the hybrid floor auto-inject applies with MiniLM and Titan (the fake embedder has none)
QUESTION = "Which instrument does my neighbour practise?"
SENTENCE = "We repainted the kitchen a pale green over the weekend and it took longer than planned. "
LONG = (SENTENCE * 11)[:900]
SHORT = SENTENCE.strip()


@pytest.fixture
def lifted(monkeypatch: pytest.MonkeyPatch, world: World) -> None:
    monkeypatch.setitem(calibration.LENGTH_LIFT, world.embedder.model_id, calibration.LENGTH_LIFT["all-MiniLM-L6-v2"])


def _search(api: Api, explain: bool = False) -> dict[str, Any]:
    asked = {"query": QUESTION, "namespaces": [ALICE], "top_k": 5, "min_score": FLOOR, "explain": explain}
    reply = api.post("/v1/memory/search", asked)
    assert reply.status == 200, reply.text
    answer: dict[str, Any] = reply.body
    return answer


def test_a_long_memory_as_close_to_the_question_passes_the_floor(api: Api, world: World, lifted: None) -> None:
    long = remember_at(world, ALICE, LONG, query=QUESTION, similarity=0.25)
    assert [hit["id"] for hit in _search(api)["hits"]] == [long]


def test_a_short_memory_as_close_stays_under_it(api: Api, world: World, lifted: None) -> None:
    remember_at(world, ALICE, SHORT, query=QUESTION, similarity=0.25)
    assert _search(api)["hits"] == []


def test_without_a_lift_for_the_model_the_long_memory_stays_under_the_floor(api: Api, world: World) -> None:
    remember_at(world, ALICE, LONG, query=QUESTION, similarity=0.25)
    assert _search(api)["hits"] == []


def test_explain_shows_the_query_s_confidence_and_the_cosine_before_and_after_the_lift(
    api: Api, world: World, lifted: None
) -> None:
    remember_at(world, ALICE, LONG, query=QUESTION, similarity=0.25)
    confidence = _search(api, explain=True)["explanation"]["thresholds"]["confidence"]
    assert confidence["vector_cosine"] == pytest.approx(0.25, abs=1e-3)
    assert confidence["vector_evidence"] == pytest.approx(0.369, abs=1e-3)
    assert confidence["value"] == pytest.approx(0.538, abs=2e-3)
    assert confidence["keyword_coverage"] == 0


def test_explain_shows_why_a_question_recalls_nothing(api: Api, world: World) -> None:
    remember_at(world, ALICE, SHORT, query=QUESTION, similarity=0.25)
    body = _search(api, explain=True)
    assert body["hits"] == []
    confidence = body["explanation"]["thresholds"]["confidence"]
    assert confidence["value"] < FLOOR
    assert confidence["vector_evidence"] == confidence["vector_cosine"]


def test_in_the_keyword_mode_explain_shows_the_keyword_evidence_alone(api: Api, world: World) -> None:
    remember(world, ALICE, "My neighbour practises the cello every evening.")
    body = {"query": QUESTION, "namespaces": [ALICE], "retrieval": "keyword", "explain": True}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    confidence = reply.body["explanation"]["thresholds"]["confidence"]
    assert set(confidence) == {"value", "keyword_coverage"}
    assert 0 < confidence["keyword_coverage"] < 1  # "instrument" is in no memory
