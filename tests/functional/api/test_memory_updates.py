"""Knowledge updates where they are wired (issue 30): the hybrid search over HTTP ranks the later statement of a
changed value above the earlier one the query is closer to, and explain says why."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mneme.memory import updates
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "Where does Kate's sister work?"
OLD = "Kate: My sister works at the bakery."
NEW = "Kate: My sister works at the hospital now."


def _old_and_new(world: World) -> tuple[str, str]:
    old = remember_at(world, ALICE, OLD, query=QUERY, similarity=0.8, observed_at=datetime(2024, 1, 10, tzinfo=UTC))
    new = remember_at(world, ALICE, NEW, query=QUERY, similarity=0.5, observed_at=datetime(2024, 6, 10, tzinfo=UTC))
    return old, new


def _ids(api: Api, query: str = QUERY, **body: object) -> list[str]:
    reply = api.post("/v1/memory/search", {"query": query, "namespaces": [ALICE], "top_k": 5, **body})
    assert reply.status == 200, reply.text
    return [str(hit["id"]) for hit in reply.body["hits"]]


def test_the_current_value_ranks_above_the_value_it_replaced(api: Api, world: World) -> None:
    old, new = _old_and_new(world)
    assert _ids(api) == [new, old]


def test_without_the_rule_the_old_value_would_rank_first(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = _old_and_new(world)
    monkeypatch.setattr(updates, "later_first", lambda candidates, query="": (list(candidates), {}))
    assert _ids(api) == [old, new]


def test_the_vector_mode_lifts_the_current_value_too(api: Api, world: World) -> None:
    old, new = _old_and_new(world)
    assert _ids(api, retrieval="vector") == [new, old]


def test_a_statement_said_before_the_other_is_not_lifted(api: Api, world: World) -> None:
    old = remember_at(world, ALICE, OLD, query=QUERY, similarity=0.8, observed_at=datetime(2024, 6, 10, tzinfo=UTC))
    new = remember_at(world, ALICE, NEW, query=QUERY, similarity=0.5, observed_at=datetime(2024, 1, 10, tzinfo=UTC))
    assert _ids(api) == [old, new]


def test_explain_names_the_entry_the_current_value_was_lifted_above(api: Api, world: World) -> None:
    old, new = _old_and_new(world)
    reply = api.post("/v1/memory/search", {"query": QUERY, "namespaces": [ALICE], "explain": True})
    hits = reply.body["explanation"]["hits"]
    assert [(hit["id"], hit.get("restates")) for hit in hits] == [(new, old), (old, None)]
    assert hits[0]["scores"]["relevance"] >= hits[1]["scores"]["relevance"]


STANDUP = "What time is standup?"


def _standup(world: World) -> tuple[str, str]:
    jan, jun = datetime(2024, 1, 10, tzinfo=UTC), datetime(2024, 6, 10, tzinfo=UTC)
    old = "Our daily standup is at 9:30am in the Juniper room."
    new = "We moved the standup to 10am, and it's on Zoom now."
    return (
        remember_at(world, ALICE, old, query=STANDUP, similarity=0.8, observed_at=jan),
        remember_at(world, ALICE, new, query=STANDUP, similarity=0.5, observed_at=jun),
    )


def test_a_later_answer_that_says_it_changed_ranks_above_the_earlier_answer(api: Api, world: World) -> None:
    old, new = _standup(world)
    assert _ids(api, STANDUP) == [new, old]


def test_without_the_words_that_say_a_value_changed_the_earlier_answer_ranks_first(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = _standup(world)
    monkeypatch.setattr(updates, "CHANGE_CUES", frozenset())
    assert _ids(api, STANDUP) == [old, new]
