"""A user's own notes, in the first person (issue 30: what a new user meets first). "I work as a nurse at the city
hospital." asked "What do I do for a living?" shares no word with the question, and MiniLM puts it at a cosine of
0.46 — under the calibrated scale's clear match — while the user's other notes sit near 0: the search with the
default floor answered nothing. A note that stands out of the other candidates this far now vouches for a question
naming nobody (:func:`mneme.memory.calibration.standout_confidence`); a best note among others as close, a question that
names someone, a transcript's line (its window's to vouch for) and a part of a long text do not. Over the fake, the
embedded store and the OpenSearch adapter (the core code is the same)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from mneme.engine.memory_io.retrieval import retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.memory.access import ReadAccess
from mneme.memory.embedding_limits import LOCAL_MINILM
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, unit

NOTES = "vector.user.alice.notes"
FLOOR = LOCAL_MINILM.floors["hybrid"][0]  # the default floor of the hybrid search the service runs locally
ASKED = unit(1)


class _MiniLM:
    """The local model's id (its calibration) with the test's vectors."""

    model_id = LOCAL_MINILM.model_id

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [ASKED for _ in texts]


def _job(store: Any, *, others: float = 0.02, prefix: str = "", **job: Any) -> dict[str, float]:
    """Relevance by id over four notes: the job's (with the fields ``job``) at a cosine of 0.46 to the question,
    three others at ``others``."""
    said = [
        ("job", "I work as a nurse at the city hospital.", unit(0.46, 0.888)),
        ("colour", "My favourite colour is teal.", unit(others, 1, 0.3)),
        ("car", "I drive a red Volvo.", unit(others, 0.3, 1)),
        ("partner", "My partner's name is Maria.", unit(others, 0, 0.4, 1)),
    ]
    at = NOW - timedelta(minutes=10)
    store.put(
        [
            (doc(prefix + text, NOTES, doc_id=doc_id, at=at + timedelta(minutes=i), **(job if i == 0 else {})), vector)
            for i, (doc_id, text, vector) in enumerate(said)
        ]
    )
    return _relevance(store, "What do I do for a living?")


def _relevance(store: Any, question: str, notes: dict[str, Any] | None = None) -> dict[str, float]:
    ports = MemoryPorts(store=store, embedder=_MiniLM(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    access = ReadAccess(allowed=(NOTES,))
    found = retrieve(ports, store, access, question, Ranking(top_k=5), vector=ASKED, now=NOW, notes=notes)
    return {c.document.id: c.similarity for c in found}


def test_a_note_standing_out_of_a_user_s_notes_is_recalled(store: Any) -> None:
    relevance = _job(store)
    assert relevance["job"] > FLOOR
    assert all(relevance[other] < FLOOR for other in ("colour", "car", "partner"))


def test_a_best_note_among_others_as_close_is_not(store: Any) -> None:
    relevance = _job(store, others=0.38)  # 0.08 above them: nothing stands out
    assert relevance["job"] < FLOOR


def test_a_question_naming_someone_keeps_the_calibrated_confidence(store: Any) -> None:
    _job(store)
    relevance = _relevance(store, "What does Maria do for a living?")
    assert relevance["job"] < FLOOR


def test_a_transcript_line_standing_out_is_left_to_its_window(store: Any) -> None:
    relevance = _job(store, prefix="Kate: ")
    assert relevance["job"] < FLOOR


def test_a_part_of_a_long_text_standing_out_is_not_a_note_of_a_user_s_own(store: Any) -> None:
    relevance = _job(store, chunk_index=1, chunk_count=3, parent_id="long")  # LongMemEval: silent 0.979 -> 0.913
    assert relevance["job"] < FLOOR


def test_explain_says_how_far_the_best_note_stands_out(store: Any) -> None:
    _job(store)
    explained: dict[str, Any] = {}
    _relevance(store, "What do I do for a living?", explained)
    assert explained["confidence"]["vector_standout"] == pytest.approx(0.97, abs=0.005)  # 0.46 above about 0.02


def test_explain_gives_no_stand_out_where_it_cannot_vouch(store: Any) -> None:
    _job(store)
    explained: dict[str, Any] = {}
    _relevance(store, "What does Maria do for a living?", explained)
    assert "vector_standout" not in explained["confidence"]


def test_a_note_among_others_as_close_does_not_stand_out_of_unrelated_transcript_lines(store: Any) -> None:
    # the user's notes as close as before, and five lines of a transcript that are nothing like the question
    at = NOW - timedelta(hours=1)
    lines = [(f"line-{i}", f"Kate: Line {i} of a chat about the weekend.", unit(0, 0, 0, 0, 1, i)) for i in range(5)]
    store.put([(doc(text, NOTES, doc_id=i, at=at + timedelta(seconds=n)), v) for n, (i, text, v) in enumerate(lines)])
    relevance = _job(store, others=0.38)  # the median of every candidate would be a line's 0: the note stood out
    assert relevance["job"] < FLOOR
