"""A memory both near a question and holding part of its words vouches for it (``calibration.JOINT``, issue 30):
"What's the dog's name?" at cosine 0.33 to "We have an old beagle named Chorizo …", which holds part of its words,
recalled nothing with the default floor (the cosine under MiniLM's ``low``, the words under one half). The people a
question names do not count as its words: a known person's name says who, not what was said of them. Over every
store (the same core)."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest

from mneme.engine.memory_io.retrieval import retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.memory import calibration
from mneme.memory.access import ReadAccess
from mneme.memory.embedding_limits import LOCAL_MINILM
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, unit

NOTES = "vector.user.alice.notes"
FLOOR = LOCAL_MINILM.floors["hybrid"][0]
ASKED = unit(1)


def _at(cosine: float) -> list[float]:
    """A vector at ``cosine`` to the question's."""
    return unit(cosine, math.sqrt(1 - cosine * cosine))


class _Embedder:
    model_id = LOCAL_MINILM.model_id

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [ASKED for _ in texts]


def _relevance(
    store: Any, question: str, notes: list[tuple[str, float]], wanted: int = 0, explained: dict[str, Any] | None = None
) -> float:
    at = NOW - timedelta(minutes=10)
    store.put(
        [
            (doc(text, NOTES, doc_id=f"n{i}", at=at + timedelta(seconds=i)), _at(cosine))
            for i, (text, cosine) in enumerate(notes)
        ]
    )
    ports = MemoryPorts(store=store, embedder=_Embedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    access = ReadAccess(allowed=(NOTES,))
    found = retrieve(ports, store, access, question, Ranking(top_k=5), vector=ASKED, now=NOW, notes=explained)
    return next(c.similarity for c in found if c.document.id == f"n{wanted}")


DOG = [
    ("We have an old beagle named Chorizo who needs his arthritis pills every morning.", 0.34),
    ("My GP is Dr. Okafor at the Riverside clinic.", 0.05),
    ("Our son Mateo is six and goes to Hillside Elementary.", 0.02),
]


@pytest.mark.keyword_leg
def test_a_memory_near_the_question_and_holding_part_of_its_words_is_recalled(store: Any) -> None:
    assert _relevance(store, "What's the dog's name?", DOG) >= FLOOR


@pytest.mark.keyword_leg
def test_without_the_rule_neither_its_cosine_nor_its_words_reach_the_floor(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calibration, "JOINT", {})
    assert _relevance(store, "What's the dog's name?", DOG) < FLOOR


@pytest.mark.keyword_leg
def test_explain_shows_what_they_vouch_for_together(store: Any) -> None:
    explained: dict[str, Any] = {}
    relevance = _relevance(store, "What's the dog's name?", DOG, explained=explained)
    assert explained["confidence"]["words_and_vector"] == explained["confidence"]["value"] >= round(relevance, 4)


@pytest.mark.keyword_leg
def test_its_words_without_a_near_cosine_do_not_vouch(store: Any) -> None:
    far = [(DOG[0][0], 0.1), *DOG[1:]]
    assert _relevance(store, "What's the dog's name?", far) < FLOOR


@pytest.mark.keyword_leg
def test_one_memorys_cosine_and_anothers_words_do_not_vouch_together(store: Any) -> None:
    apart = [
        ("We have an old beagle who needs his arthritis pills every morning.", 0.34),  # near, none of its words
        ("Our cat is named Pixel.", 0.05),  # its words ("name"), far
        ("Our son Mateo is six and goes to Hillside Elementary.", 0.02),
        ("The office closes at 7pm on Fridays.", 0.01),
        ("Expense reports are due on the 5th.", 0.0),
        ("Standup moved to 10am.", 0.0),
    ]
    assert _relevance(store, "What's the dog's name?", apart, wanted=1) < FLOOR  # the note holding the words


@pytest.mark.keyword_leg
def test_the_name_of_a_known_person_is_not_a_word_of_the_question(store: Any) -> None:
    notes = [  # the first near enough not to say nothing (over MiniLM's low), sharing only the name
        ("Lars joined the data team in May and sits next to Priya.", 0.36),
        ("Priya owns the quarterly planning doc.", 0.05),
        ("The team lunch is on Thursdays.", 0.02),
        ("Standup moved to 10am.", 0.02),
        ("The office closes at 7pm on Fridays.", 0.01),
        ("Expense reports are due on the 5th.", 0.0),
    ]
    assert _relevance(store, "Where does Lars live?", notes) < FLOOR
