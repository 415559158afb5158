"""The local vector store reads back every row it holds (mneme_local.vector_rows.moment): a moment stored before the
API bounded the moments it takes (year 0 in UTC, written as "0001-01-01T00:00:00+14:00") made every later read of
the user's memory a 500."""

from __future__ import annotations

from datetime import UTC, datetime

from mneme_local.vector_rows import micros, moment


def test_a_moment_reads_back_exactly() -> None:
    at = datetime(2026, 12, 6, 22, 30, 1, 5, tzinfo=UTC)
    assert moment(micros(at)) == at


def test_a_moment_before_the_first_python_date_reads_as_the_first() -> None:
    stored = micros(datetime.fromisoformat("0001-01-01T00:00:00+14:00"))
    assert moment(stored) == datetime.min.replace(tzinfo=UTC)


def test_a_moment_after_the_last_python_date_reads_as_the_last() -> None:
    stored = micros(datetime.fromisoformat("9999-12-31T23:59:59-14:00"))
    assert moment(stored) == datetime.max.replace(tzinfo=UTC)
