"""A memory said on a known day counts that day's words in BM25 (:func:`mneme.memory.keyword_scoring.said_on`),
unless its content already says when (a stamp, :mod:`mneme.memory.speakers`)."""

from __future__ import annotations

from datetime import UTC, datetime

from mneme.memory.keyword_scoring import DATE_WEIGHT, Bm25, said_on
from mneme.models.memory import KeywordMatches, MemoryDocument

MAY_8 = datetime(2023, 5, 8, 23, 30, tzinfo=UTC)


def _doc(content: str, observed_at: datetime | None) -> MemoryDocument:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return MemoryDocument(
        id=content, namespace="vector.user.a.memory", owner_user_id="a", content=content, content_hash=content,
        created_at=at, updated_at=at, observed_at=observed_at,
    )  # fmt: skip


def _counts(doc: MemoryDocument) -> dict[str, float]:
    matches = KeywordMatches(documents=[], total_documents=10, total_chars=300, doc_freq={"camping": 3})
    return Bm25(["camping", "may", "2023", "june"], matches).counts_of(doc)


def test_the_words_of_a_day() -> None:
    assert said_on(MAY_8) == "8 May 2023"


def test_a_line_said_on_a_known_day_counts_the_day_s_words() -> None:
    assert _counts(_doc("Kate: We went camping.", MAY_8)) == {"camp": 1.0, "mai": DATE_WEIGHT, "2023": DATE_WEIGHT}


def test_a_line_said_on_no_known_day_counts_none() -> None:
    assert _counts(_doc("Kate: We went camping.", None)) == {"camp": 1.0}


def test_a_line_that_says_when_counts_its_own_date_only() -> None:
    line = _doc("[9 June 2023] Kate: We went camping.", MAY_8)
    assert _counts(line) == {"camp": 1.0, "june": 1.0, "2023": 1.0}
