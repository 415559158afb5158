"""The lines of conversation shown with a recalled chat line (issue 30, :mod:`mneme.memory.conversation`): the
lines said just after and before it, nearest first and without a gap, short whole memories of one conversation,
within the block's budget; the hits themselves unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mneme.memory import conversation
from mneme.memory.content_prior import CHAT_LINE_CHARS
from mneme.memory.conversation import BUDGET_CHARS, GAP, with_lines
from mneme.models.memory import MemoryDocument, MemoryHit

NS = "vector.user.alice.memory"
Around = dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]
AT = datetime(2026, 5, 8, 12, 0, tzinfo=UTC)


def _doc(doc_id: str, content: str, *, at: datetime = AT, **fields: Any) -> MemoryDocument:
    return MemoryDocument(
        id=doc_id, namespace=NS, owner_user_id="alice", content=content, content_hash=doc_id, created_at=at,
        updated_at=at, **fields,
    )  # fmt: skip


def _hit(doc_id: str, content: str, relevance: float = 0.5, **fields: Any) -> MemoryHit:
    return MemoryHit(
        id=doc_id, namespace=NS, content=content, similarity=relevance, relevance=relevance, created_at=AT, **fields
    )


ASKED = _hit("asked", "Nate: What genre is your first screenplay?")
BEFORE = _doc("before", "Joanna: I finished my first screenplay!")
AFTER = _doc("after", "Joanna: It's a mix of drama and romance!")


def _lines(hits: list[MemoryHit], around: dict[str, Any], **options: Any) -> dict[str, list[tuple[str, int]]]:
    shown = with_lines(hits, around, **options)
    return {hit.id: [(line.id, line.offset) for line in hit.context] for hit in shown}


def test_a_chat_line_brings_the_two_lines_said_on_each_side_of_it() -> None:
    around = {
        "asked": (
            [_doc("oldest", "Nate: Hey."), _doc("older", "Nate: Hi!"), BEFORE],
            [AFTER, _doc("later", "Nate: Cool."), _doc("latest", "Nate: Bye.")],
        )
    }
    lines = _lines([ASKED], around)
    assert lines == {"asked": [("older", -2), ("before", -1), ("after", 1), ("later", 2)]}


def test_no_line_is_shown_past_one_that_is_not() -> None:
    long = _doc("after", "Joanna: " + "drama " * (CHAT_LINE_CHARS // 6))
    around: Around = {"asked": ([], [long, _doc("later", "Nate: Cool.")])}
    assert _lines([ASKED], around) == {"asked": []}


def test_without_its_conversation_read_a_hit_brings_nothing() -> None:
    assert _lines([ASKED], {}) == {"asked": []}


def test_the_hits_their_order_and_scores_do_not_change() -> None:
    hits = [ASKED, _hit("other", "Kate: The kiln broke.", relevance=0.4)]
    shown = with_lines(hits, {"asked": ([BEFORE], [AFTER])})
    assert [(h.id, h.relevance, h.similarity, h.content) for h in shown] == [
        (h.id, h.relevance, h.similarity, h.content) for h in hits
    ]


def test_a_long_hit_is_a_message_and_brings_no_line() -> None:
    long = _hit("long", "Nate: " + "word " * (CHAT_LINE_CHARS // 5))
    assert len(long.content) > CHAT_LINE_CHARS
    assert _lines([long], {"long": ([BEFORE], [AFTER])}) == {"long": []}


def test_a_long_neighbour_is_not_shown_as_a_line() -> None:
    long = _doc("after", "Joanna: " + "drama " * (CHAT_LINE_CHARS // 6))
    assert len(long.content) > CHAT_LINE_CHARS
    assert _lines([ASKED], {"asked": ([], [long])}) == {"asked": []}


def test_a_chunk_of_a_long_memory_is_neither_a_chat_line_nor_shown_as_one() -> None:
    chunk = _doc("after", "the last lines of a long note.", parent_id="note", chunk_index=2, chunk_count=3)
    assert _lines([ASKED], {"asked": ([], [chunk])}) == {"asked": []}
    hit = _hit("piece", "the middle of a long note.", parent_id="note", chunk_index=1, chunk_count=3)
    assert _lines([hit], {"piece": ([], [AFTER])}) == {"piece": []}
    first = _hit("first", "Nate: the first lines of a long note.", chunk_index=0, chunk_count=3)
    assert _lines([first], {"first": ([], [AFTER])}) == {"first": []}
    first_line = _doc("after", "Joanna: the first lines of a long note.", chunk_index=0, chunk_count=2)
    assert _lines([ASKED], {"asked": ([], [first_line])}) == {"asked": []}


def test_a_line_said_within_the_gap_is_one_conversation_and_one_said_later_is_not() -> None:
    close = _doc("after", AFTER.content, at=AT + GAP)
    assert _lines([ASKED], {"asked": ([], [close])}) == {"asked": [("after", 1)]}
    apart = _doc("after", AFTER.content, at=AT + GAP + timedelta(seconds=1))
    assert _lines([ASKED], {"asked": ([], [apart])}) == {"asked": []}


def test_when_it_was_said_counts_before_when_it_was_stored() -> None:
    stored_later = _doc("after", AFTER.content, at=AT + 10 * GAP, observed_at=AT + timedelta(minutes=1))
    assert _lines([ASKED], {"asked": ([], [stored_later])}) == {"asked": [("after", 1)]}


def test_a_neighbour_that_is_a_hit_is_not_shown_again() -> None:
    answer = _hit("after", AFTER.content)
    assert _lines([ASKED, answer], {"asked": ([], [AFTER])}) == {"asked": [], "after": []}


def test_a_line_is_shown_with_one_hit_only() -> None:
    other = _hit("other", "Nate: And the ending?")
    around = {"asked": ([], [AFTER]), "other": ([AFTER], [])}
    assert _lines([ASKED, other], around) == {"asked": [("after", 1)], "other": []}


def test_an_entry_deleted_moments_ago_is_not_shown() -> None:
    assert _lines([ASKED], {"asked": ([], [AFTER])}, hidden=frozenset({"after"})) == {"asked": []}


def test_every_hit_s_nearest_lines_come_before_any_second_line_within_the_budget() -> None:
    second = _hit("second", "Kate: Pottery on Tuesdays?")
    around = {
        "asked": ([BEFORE], [AFTER, _doc("later", "Nate: Cool.")]),
        "second": ([], [_doc("reply", "Anna: Nice.")]),
    }
    room = len(ASKED.content) + len(second.content) + len(AFTER.content) + len(BEFORE.content) + len("Anna: Nice.")
    lines = _lines([ASKED, second], around, budget=room)
    assert lines == {"asked": [("before", -1), ("after", 1)], "second": [("reply", 1)]}


def test_the_line_after_each_hit_comes_before_the_line_before_any() -> None:
    second = _hit("second", "Kate: Pottery on Tuesdays?")
    around = {"asked": ([BEFORE], [AFTER]), "second": ([], [_doc("reply", "Anna: Nice.")])}
    room = len(ASKED.content) + len(second.content) + len(AFTER.content) + len("Anna: Nice.")
    lines = _lines([ASKED, second], around, budget=room + len(BEFORE.content) - 1)
    assert lines == {"asked": [("after", 1)], "second": [("reply", 1)]}


def test_a_line_that_does_not_fit_leaves_room_for_a_shorter_one() -> None:
    second = _hit("second", "Kate: Pottery on Tuesdays?")
    around = {"asked": ([BEFORE], [AFTER]), "second": ([], [_doc("reply", "Anna: Nice.")])}
    room = len(ASKED.content) + len(second.content) + len(AFTER.content) + len("Anna: Nice.")
    lines = _lines([ASKED, second], around, budget=room)
    assert lines == {"asked": [("after", 1)], "second": [("reply", 1)]}


def test_the_default_budget_is_the_issue_s_two_thousand_characters() -> None:
    assert BUDGET_CHARS == 2_000
    hits = [_hit(f"h{n}", f"Nate: {n} " + "x" * 380) for n in range(5)]
    around: Around = {hit.id: ([], [_doc(f"a{n}", "Joanna: " + "y" * 380)]) for n, hit in enumerate(hits)}
    assert all(len(doc.content) <= CHAT_LINE_CHARS for _, (doc,) in around.values())
    shown = with_lines(hits, around)
    total = sum(len(text) for hit in shown for text in conversation.conversation(hit))
    assert 2_000 - CHAT_LINE_CHARS < total <= 2_000


def test_a_hit_reads_in_the_order_it_was_said() -> None:
    (shown,) = with_lines([ASKED], {"asked": ([BEFORE], [AFTER])})
    assert conversation.conversation(shown) == [BEFORE.content, ASKED.content, AFTER.content]


def test_notes_stored_one_after_the_other_are_not_a_conversation() -> None:
    note = _hit("note", "Alice prefers green tea in the morning.")
    next_note = _doc("next", "Alice's cat is called Tom.")
    assert _lines([note], {"note": ([], [next_note])}) == {"note": []}


def test_a_note_next_to_a_chat_line_is_not_one_of_its_lines() -> None:
    assert _lines([ASKED], {"asked": ([], [_doc("note", "Pottery class is on Tuesdays.")])}) == {"asked": []}


def test_turns_of_one_chat_are_a_conversation_without_saying_who_speaks() -> None:
    asked = _hit("asked", "what genre is my first screenplay?", metadata={"chat_id": "c1"})
    answer = _doc("answer", "A mix of drama and romance.", metadata={"chat_id": "c1"})
    assert _lines([asked], {"asked": ([], [answer])}) == {"asked": [("answer", 1)]}
    other_chat = _doc("answer", "A mix of drama and romance.", metadata={"chat_id": "c2"})
    assert _lines([asked], {"asked": ([], [other_chat])}) == {"asked": []}
