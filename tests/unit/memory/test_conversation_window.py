"""The conversation window (issue 30, :mod:`mneme.memory.hybrid`): a chat line takes its neighbours' words, so the
answer to "what are Kate's hobbies" is found in the line after the one naming them; a long message stands alone.
Lines of a transcript (each says who speaks): notes stored one after the other are no conversation
(``tests/functional/memory/test_notes_ranking.py``)."""

from __future__ import annotations

from datetime import UTC, datetime

from mneme.memory import hybrid
from mneme.memory.content_prior import CHAT_LINE_CHARS
from mneme.memory.keyword_scoring import Bm25
from mneme.models.memory import KeywordMatches, MemoryDocument

NOW = datetime(2024, 6, 1, tzinfo=UTC)
ASKED = "Kate: what are your hobbies these days?"
ANSWER = "Ana: Mostly watercolours, and a pottery class on Sundays."
LONG_ANSWER = ANSWER + " " + "We also spent the spring repainting the house, room by room, slowly. " * 6
OTHER = "Kate: Lunch at noon on Friday?"


def _doc(doc_id: str, content: str) -> MemoryDocument:
    return MemoryDocument(
        id=doc_id, namespace="vector.user.a.memory", owner_user_id="a", content=content, content_hash=doc_id,
        created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def _fused(answer: str, stamp: str = "") -> dict[str, float]:
    """The question's line, the answer after it and another line after that; only the first holds "hobbies"
    (each written after ``stamp``)."""
    asked, reply, other = _doc("asked", stamp + ASKED), _doc("reply", stamp + answer), _doc("other", stamp + OTHER)
    chars = sum(len(doc.content) for doc in (asked, reply, other))
    bm25 = Bm25(
        ["hobbies"], KeywordMatches(documents=[asked], total_documents=3, total_chars=chars, doc_freq={"hobbies": 1})
    )
    turns = [(asked, bm25.score(bm25.counts_of(asked), len(asked.content)))]
    fused = hybrid.fuse([], turns, bm25, {"asked": ([], [reply, other])}, vector_confidence=0.0)
    return {candidate.document.id: candidate.similarity for candidate in fused}


def test_a_chat_line_after_the_question_s_words_is_found_through_its_window() -> None:
    assert len(ANSWER) <= CHAT_LINE_CHARS
    fused = _fused(ANSWER)
    assert fused["reply"] > fused["other"] > 0


def test_a_long_message_after_them_stands_alone() -> None:
    assert len(LONG_ANSWER) > CHAT_LINE_CHARS
    fused = _fused(LONG_ANSWER)
    assert "reply" not in fused
    assert fused["other"] > 0  # the chat lines around it still share their window


def test_lines_stamped_with_their_date_are_one_conversation() -> None:
    fused = _fused(ANSWER, stamp="[8 May 2023] ")
    assert fused["reply"] > fused["other"] > 0


def test_a_stamped_line_without_a_speaker_is_no_line_of_it() -> None:
    fused = _fused(ANSWER.removeprefix("Ana: "), stamp="[8 May 2023] ")
    assert "reply" not in fused
