from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FixedClock:
    """A clock that stands still until told to move."""

    def __init__(self, at: datetime | None = None) -> None:
        self.at = at or datetime(2026, 11, 30, 9, 5, tzinfo=UTC)

    def now(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)
