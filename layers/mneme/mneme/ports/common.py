"""The ports every store shares: the clock, and one owned item of an export or erasure.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mneme.records import Record

if TYPE_CHECKING:
    from datetime import datetime


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class OwnedItem(Record):
    """One thing a store holds for a user, as an export lists it and an erasure counts it: its ``kind``
    (``agent``, ``message``, ``event``, ``memory``, ``audit`` ...), a ``key`` unique across mneme (an erasure
    receipt's digest is over these keys) and its content as JSON-ready data."""

    kind: str
    key: str
    data: Any


# --------------------------------------------------------------------------------------------- model
