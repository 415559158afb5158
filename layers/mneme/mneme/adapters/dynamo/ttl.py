"""Retention of the main table's items: the DynamoDB TTL attribute, written where data should expire.

``expires_at`` (epoch seconds; template.yaml's ``TimeToLiveSpecification`` names it — a test checks) is set
on every item of a chat and of a run when the deployment's retention for it is not 0 (0 = keep forever).
DynamoDB deletes an expired item only within days of its expiry, and SQLite / the in-memory table never
do, so every read filters expired items: what has expired is never returned in between.

The parent item is the authority. A run item expires ``retention_days_runs`` after the run was created
and a chat header ``retention_days_chats`` after the chat was created; the items under them (events,
recorded requests, checkpoint, marks, messages) are stamped when they are written, which is never earlier,
so they expire with or after their parent and a reachable run or chat is never missing a part. Recorded
requests may expire earlier (``retention_days_requests``): they hold the full prompts.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mneme.records import Record

#: the main table's TTL attribute (template.yaml: MainTable.TimeToLiveSpecification.AttributeName)
TTL_ATTRIBUTE = "expires_at"
DAY_SECONDS = 86_400


class Retention(Record):
    """Days until expiry by kind of data; 0 keeps it forever."""

    chats_days: int = 0
    runs_days: int = 0
    requests_days: int = 0

    @property
    def effective_requests_days(self) -> int:
        """Requests never outlive their run: the shorter of the two retentions that are set."""
        days = [d for d in (self.requests_days, self.runs_days) if d > 0]
        return min(days) if days else 0


def expiry(start: datetime, days: int) -> int | None:
    """The TTL value of an item that expires ``days`` after ``start`` (None: it never expires)."""
    return int(start.timestamp()) + days * DAY_SECONDS if days > 0 else None


def stamp(item: dict[str, Any], expires_at: int | None) -> dict[str, Any]:
    """``item`` with its TTL attribute set (unchanged when it never expires)."""
    if expires_at is not None:
        item[TTL_ATTRIBUTE] = expires_at
    return item


def expired(item: Mapping[str, Any], now: datetime) -> bool:
    """Whether DynamoDB TTL may already have deleted ``item`` (its time has come)."""
    value = item.get(TTL_ATTRIBUTE)
    return isinstance(value, int | float) and value <= now.timestamp()
