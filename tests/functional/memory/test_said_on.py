"""A memory said on a known day counts that day's words (issue 30, :func:`mneme.memory.keyword_scoring.said_on`):
"When did Kate go camping in July?" over two camping trips, each line with the day it was said (``observed_at``,
as a batch of a transcript's lines gives it), ranks July's first. LoCoMo's lines with their sessions' days: 202 of
its 1,536 scored questions name a month or a year; categories 1-4 0.659 / 0.748 / 0.824 -> 0.673 / 0.760 / 0.825,
auto-inject 0.741 -> 0.757. Over the fake, the embedded store and the OpenSearch adapter."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.engine.memory_io.retrieval import retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.memory.access import ReadAccess
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, unit

ALICE = "vector.user.alice.memory"
ASKED = unit(1, 0.2)
JUNE, JULY = datetime(2023, 6, 10, tzinfo=UTC), datetime(2023, 7, 15, tzinfo=UTC)


class _Embedder:
    model_id = "hashing"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [ASKED for _ in texts]


def _trips(store: Any, *, dated: bool = True) -> None:
    """Two sessions of Kate and Ana, a camping trip in each; June's nearer the question's vector than July's."""
    lines = [
        ("june-hi", "Ana: How was your week?", JUNE, unit(0, 1)),
        ("june", "Kate: We went camping by the lake.", JUNE, unit(1, 0.2)),
        ("june-bye", "Ana: Sounds lovely, send me the photos.", JUNE, unit(0.2, 1)),
        ("july-hi", "Ana: Anything new since we spoke?", JULY, unit(0.1, 1)),
        ("july", "Kate: We went camping up in the mountains, three nights in a tent.", JULY, unit(1, 0.3)),
        ("july-bye", "Ana: Wow, I am jealous of that view.", JULY, unit(0.3, 1)),
    ]
    store.put(
        [
            (doc(text, ALICE, doc_id=doc_id, at=said, observed_at=said if dated else None), vector)
            for doc_id, text, said, vector in lines
        ]
    )


def _first(store: Any, question: str) -> str:
    ports = MemoryPorts(store=store, embedder=_Embedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    found = retrieve(ports, store, ReadAccess(allowed=(ALICE,)), question, Ranking(top_k=5), vector=ASKED, now=NOW)
    return found[0].document.id


@pytest.mark.keyword_leg
def test_the_line_said_in_the_month_a_question_names_comes_first(store: Any) -> None:
    _trips(store)
    assert _first(store, "When did Kate go camping in July?") == "july"


@pytest.mark.keyword_leg
def test_the_other_month_named_brings_the_other_line(store: Any) -> None:
    _trips(store)
    assert _first(store, "When did Kate go camping in June?") == "june"


@pytest.mark.keyword_leg
def test_without_the_days_they_were_said_the_vector_orders_them(store: Any) -> None:
    _trips(store, dated=False)
    assert _first(store, "When did Kate go camping in July?") == "june"
