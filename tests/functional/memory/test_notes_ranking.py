"""Notes are not a conversation, and a keyword leg that found only a person's name does not rank (issue 30: what
a user with a few notes meets first). Ten notes about Maria and Tom: "What pets does Maria have?" ranked
"Maria's birthday is on June 3." first — every note of hers matched "Maria" alone, the shortest best — and
"What is Tom's job?" put "Tom lives in Oslo and is a software engineer." fourth of five. A note that says nothing
of a question (no word of it but the names it asks about, a cosine under the model's ``low``) no longer rides on
the best hit's confidence: "Where is the offsite?" over ten notes injected four about Maria and Tom. Over the fake,
the embedded store and the OpenSearch adapter (the core code is the same)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from mneme.engine.memory_io.retrieval import retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.memory import hybrid, name_lift
from mneme.memory.access import ReadAccess
from mneme.memory.embedding_limits import LOCAL_MINILM
from mneme.memory.talk import one_talk
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, unit

ALICE = "vector.user.alice.memory"
QUESTION = "What pets does Maria have?"
ASKED = unit(1, 0.2)  # the question's vector: nearest the cats, then Maria's other notes, far from Tom's


class _Embedder:
    model_id = "hashing"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [ASKED for _ in texts]


def _notes(store: Any, *, speaker: str = "") -> None:
    notes = [
        ("birthday", "Maria's birthday is on June 3.", unit(1, 0.45)),
        ("cats", "Maria has two cats named Pixel and Byte at home.", unit(1, 0.25)),
        ("peanuts", "Maria is allergic to peanuts.", unit(1, 0.5)),
        ("volvo", "Tom drives an old Volvo.", unit(0, 1)),
    ]
    at = NOW - timedelta(minutes=10)
    store.put(
        [
            (doc(speaker + text, ALICE, doc_id=doc_id, at=at + timedelta(seconds=i)), vector)
            for i, (doc_id, text, vector) in enumerate(notes)
        ]
    )


def _ranked(store: Any, question: str = QUESTION) -> list[str]:
    ports = MemoryPorts(store=store, embedder=_Embedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    found = retrieve(ports, store, ReadAccess(allowed=(ALICE,)), question, Ranking(top_k=5), vector=ASKED, now=NOW)
    return [c.document.id for c in found]


@pytest.mark.keyword_leg
def test_notes_whose_keyword_match_is_only_the_name_are_ranked_by_what_they_say(store: Any) -> None:
    _notes(store)
    assert _ranked(store)[0] == "cats"


@pytest.mark.keyword_leg
def test_with_the_name_ranking_them_the_shortest_note_about_her_came_first(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(name_lift, "names_only", lambda *_args: False)
    _notes(store)
    assert _ranked(store)[0] != "cats"


@pytest.mark.keyword_leg
def test_a_word_of_the_subject_found_keeps_the_keyword_leg(store: Any) -> None:
    _notes(store)
    assert _ranked(store, "Is Maria allergic to anything?")[0] == "peanuts"


def test_the_people_a_question_names() -> None:
    assert name_lift.people(QUESTION) == ("Maria",)
    assert name_lift.people("What is Tom's job?") == ("Tom",)
    assert name_lift.people("Who plays a musical instrument?") == ()


def test_transcript_lines_are_one_talk_and_notes_are_not() -> None:
    assert one_talk(doc("Maria: I adopted a kitten."), doc("Tom: What is its name?"))
    assert not one_talk(doc("Maria adopted a kitten."), doc("Its name is Luna."))
    assert not one_talk(doc("Maria: I adopted a kitten."), doc("Its name is Luna."))
    chat = {"chat_id": "c1"}
    assert one_talk(doc("I adopted a kitten.", metadata=chat), doc("What is its name?", metadata=chat))


NOTES = "vector.user.alice.notes"


def _adopted(store: Any) -> dict[str, float]:
    """The relevance of "I adopted a kitten" to "Who is Luna?" when the next memory names her: as a line of a
    transcript (ALICE) and as a note (NOTES); the same words, vectors and times."""
    said = [("I adopted a kitten last week.", unit(1)), ("Her name is Luna, she is tiny.", unit(0, 1))]
    at = NOW - timedelta(minutes=10)
    for namespace, prefix in ((ALICE, "Maria: "), (NOTES, "")):
        store.put(
            [
                (doc(prefix + text, namespace, doc_id=f"{namespace}-{i}", at=at + timedelta(seconds=i)), vector)
                for i, (text, vector) in enumerate(said)
            ]
        )
    ports = MemoryPorts(store=store, embedder=_Embedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    relevance = {}
    for namespace in (ALICE, NOTES):
        access = ReadAccess(allowed=(namespace,))
        found = retrieve(ports, store, access, "Who is Luna?", Ranking(top_k=5), vector=unit(0, 1), now=NOW)
        relevance[namespace] = next(c.similarity for c in found if c.document.id == f"{namespace}-0")
    return relevance


@pytest.mark.keyword_leg
def test_a_transcript_line_borrows_the_next_lines_words_and_a_note_does_not(store: Any) -> None:
    relevance = _adopted(store)
    assert relevance[ALICE] > relevance[NOTES] + 0.02  # 0.742 against the floor of a last hit, 0.707


@pytest.mark.keyword_leg
def test_notes_taken_for_a_conversation_lend_each_other_their_words(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mneme.memory import hybrid

    monkeypatch.setattr(hybrid, "one_talk", lambda *_args: True)
    relevance = _adopted(store)
    assert relevance[ALICE] == pytest.approx(relevance[NOTES], abs=0.001)


def _offsite(store: Any, namespace: str, prefix: str, volvo: str = "Tom drives an old Volvo.") -> dict[str, float]:
    """The relevance of each memory to a question about the offsite: its note (the question's vector) and one
    about Tom that shares neither its words nor its likeness (cosine 0), stored as notes or as transcript lines."""
    said = [("offsite", "The team offsite is planned for March in Lisbon.", ASKED), ("volvo", volvo, unit(0, 0, 1))]
    at = NOW - timedelta(minutes=10)
    store.put(
        [
            (doc(prefix + text, namespace, doc_id=doc_id, at=at + timedelta(seconds=i)), vector)
            for i, (doc_id, text, vector) in enumerate(said)
        ]
    )
    return _relevance(store, namespace, "Where is Tom's team offsite?")


def _relevance(store: Any, namespace: str, question: str) -> dict[str, float]:
    ports = MemoryPorts(store=store, embedder=_Embedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    access = ReadAccess(allowed=(namespace,))
    found = retrieve(ports, store, access, question, Ranking(top_k=5), vector=ASKED, now=NOW)
    return {c.document.id: c.similarity for c in found}


FLOOR = LOCAL_MINILM.floors["hybrid"][0]  # the default floor of the hybrid search the service runs locally


@pytest.mark.keyword_leg
def test_a_note_that_says_nothing_of_the_question_falls_under_the_floor(store: Any) -> None:
    relevance = _offsite(store, NOTES, "")
    assert relevance["offsite"] > FLOOR > relevance["volvo"] > 0  # ranked last, not recalled by the floor


@pytest.mark.keyword_leg
def test_a_transcript_line_that_says_nothing_of_the_question_keeps_its_share(store: Any) -> None:
    relevance = _offsite(store, ALICE, "Maria: ")  # the line after may be the answer: its window vouches for it
    assert relevance["volvo"] > FLOOR


@pytest.mark.keyword_leg
def test_a_note_sharing_a_word_of_the_subject_keeps_its_share(store: Any) -> None:
    relevance = _offsite(store, NOTES, "", volvo="Tom drives the team an old Volvo.")
    assert relevance["volvo"] > FLOOR


@pytest.mark.keyword_leg
def test_the_name_of_the_person_asked_about_is_not_a_word_shared(store: Any) -> None:
    relevance = _offsite(store, NOTES, "")  # "Tom" is in the question and in the note
    assert relevance["volvo"] < hybrid.SAYS_NOTHING


@pytest.mark.keyword_leg
def test_a_transcript_line_stored_alone_among_notes_says_nothing(store: Any) -> None:
    relevance = _offsite(store, NOTES, "", volvo="Maria: Tom drives an old Volvo.")  # no line of its talk beside it
    assert relevance["offsite"] > FLOOR > relevance["volvo"] > 0
