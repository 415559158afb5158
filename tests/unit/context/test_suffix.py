"""The volatile suffix of the current user message."""

from __future__ import annotations

from datetime import UTC, datetime

from mneme.context.suffix import MEMORY_CLOSING, MEMORY_HEADER, memory_block, volatile_suffix
from mneme.models import MemoryHit
from mneme.models.memory import ContextLine
from tests.unit.context.fixtures import HITS, build, master_input


def _current_text(**changes: object) -> str:
    text: str = build(master_input(**changes)).request["messages"][-1]["content"][-1]["text"]
    return text


def test_memory_block_comes_after_the_user_text_and_before_the_date_line() -> None:
    # Given a request with memory hits
    # When the current user message is assembled
    text = _current_text()

    # Then user text, memory header, entries, closing line and date line come in this order
    order = [
        text.index("Draft an email to Ben about the trip."),
        text.index(MEMORY_HEADER),
        text.index("Anna prefers short emails"),
        text.index("Ben is Anna's colleague"),
        text.index(MEMORY_CLOSING),
        text.index("[Context — current date/time: Montag, 30. November 2026, 10:05]"),
    ]
    assert order == sorted(order)
    assert text.endswith("[Context — current date/time: Montag, 30. November 2026, 10:05]")


def test_no_memory_header_without_hits() -> None:
    # Given a request without memory hits
    # When the current user message is assembled
    text = _current_text(memory_hits=())

    # Then it is the user text and the date line only
    assert MEMORY_HEADER not in text
    date_line = "[Context — current date/time: Montag, 30. November 2026, 10:05]"
    assert text == f"Draft an email to Ben about the trip.\n\n{date_line}"


def test_memory_entries_keep_their_order_and_are_separated_by_blank_lines() -> None:
    # Given two hits in ranking order
    # When the memory block is rendered for Berlin
    block = memory_block(HITS, timezone="Europe/Berlin")

    # Then the entries follow the header in that order, one blank line apart
    assert block == (
        "RELEVANT CONTEXT FROM LONG-TERM MEMORY:\n"
        "--- MEMORY ENTRY (Stored on 2026-10-13, Namespace: vector.user.alice.preferences) ---\n"
        "Anna prefers short emails without small talk.\n\n"
        "--- MEMORY ENTRY (Stored on 2026-06-02, Namespace: vector.agent.alice.memory) ---\n"
        "Ben is Anna's colleague from the Porto office.\n\n" + MEMORY_CLOSING
    )


def test_namespace_rule_instructions_are_shown_before_the_closing_line() -> None:
    # Given a namespace rule instruction for the hits
    # When the suffix is rendered
    suffix = volatile_suffix(
        HITS[:1],
        date_text="Monday, November 30, 2026",
        time_text="09:05",
        timezone="UTC",
        instructions=["Preferences override older habits."],
    )

    # Then the instruction sits between the entries and the closing line
    assert suffix.index("Preferences override") < suffix.index(MEMORY_CLOSING) < suffix.index("[Context")


def _turn(hit_id: str, content: str, namespace: str, day: int) -> MemoryHit:
    at = datetime(2026, 5, day, 12, 0, tzinfo=UTC)
    return MemoryHit(id=hit_id, namespace=namespace, content=content, similarity=0.5, relevance=0.5, created_at=at)


def test_consecutive_hits_of_one_day_and_namespace_share_one_entry_line() -> None:
    # Given three turns of one conversation day, then one of another namespace, then one of the first day again
    ns, other = "vector.user.alice.memory", "vector.user.alice.notes"
    hits = [
        _turn("a", "Kate: I took up pottery.", ns, 8),
        _turn("b", "Anna: Since when?", ns, 8),
        _turn("c", "Kate: Since March.", ns, 8),
        _turn("d", "Pottery class is on Tuesdays.", other, 8),
        _turn("e", "Kate: The kiln broke.", ns, 8),
    ]
    # When rendered
    block = memory_block(hits, timezone="UTC")
    # Then the first three share one header, in order; a change of namespace starts a new one, even back
    assert block == (
        "RELEVANT CONTEXT FROM LONG-TERM MEMORY:\n"
        f"--- MEMORY ENTRY (Stored on 2026-05-08, Namespace: {ns}) ---\n"
        "Kate: I took up pottery.\nAnna: Since when?\nKate: Since March.\n\n"
        f"--- MEMORY ENTRY (Stored on 2026-05-08, Namespace: {other}) ---\n"
        "Pottery class is on Tuesdays.\n\n"
        f"--- MEMORY ENTRY (Stored on 2026-05-08, Namespace: {ns}) ---\n"
        "Kate: The kiln broke.\n\n" + MEMORY_CLOSING
    )


def test_hits_of_different_days_keep_one_entry_line_each() -> None:
    ns = "vector.user.alice.memory"
    block = memory_block([_turn("a", "one", ns, 8), _turn("b", "two", ns, 9)], timezone="UTC")
    assert block.count("--- MEMORY ENTRY") == 2


def test_a_hit_s_lines_of_conversation_stand_around_it_in_its_entry() -> None:
    # Given a chat-line hit shown with the lines said just before and after it (mneme.memory.conversation)
    ns = "vector.user.alice.memory"
    hit = _turn("a", "Nate: What genre is it?", ns, 8).model_copy(
        update={
            "context": [
                ContextLine(id="p", content="Joanna: I finished my first screenplay!", offset=-1),
                ContextLine(id="n", content="Joanna: It's a mix of drama and romance!", offset=1),
            ]
        }
    )
    # When rendered
    block = memory_block([hit, _turn("b", "Kate: The kiln broke.", ns, 8)], timezone="UTC")
    # Then they read in the order they were said, under the hit's one entry line, before the next hit
    assert block.startswith(
        "RELEVANT CONTEXT FROM LONG-TERM MEMORY:\n"
        f"--- MEMORY ENTRY (Stored on 2026-05-08, Namespace: {ns}) ---\n"
        "Joanna: I finished my first screenplay!\nNate: What genre is it?\nJoanna: It's a mix of drama and romance!\n"
        "Kate: The kiln broke.\n\n"
    )
