"""Retention of memory entries by class (the deployment's ``retention_days_memory_*`` settings).

An entry of a class with a retention expires that many days after it was created: the writers stamp
``expires_at`` (the earlier of the class retention and the entry's own ``ttl_seconds``), so every store
filters it inside its search like any other expired entry, and every read by id treats it as gone
(:func:`is_expired`). The purge (:func:`cutoffs` → ``MemoryStore.purge_expired``) deletes expired entries for
good — including entries stored before a class retention was set, which carry no ``expires_at`` and are
purged by their class and creation time.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import get_args

from mneme.models.memory import MemoryClass, MemoryDocument
from mneme.records import Record, field
from mneme.settings import Settings

MEMORY_CLASSES: tuple[MemoryClass, ...] = get_args(MemoryClass)


class MemoryRetention(Record):
    """Days an entry of each class is kept after its creation; a class not named (or 0) is kept forever."""

    days: Mapping[MemoryClass, int] = field(default_factory=dict)

    def days_of(self, memory_class: MemoryClass) -> int:
        return max(0, int(self.days.get(memory_class, 0)))

    def expires_at(
        self, created_at: datetime, memory_class: MemoryClass, ttl_seconds: int | None = None
    ) -> datetime | None:
        """The entry's expiry: the earlier of its own ``ttl_seconds`` and its class retention (None: never)."""
        candidates = []
        if ttl_seconds:
            candidates.append(created_at + timedelta(seconds=ttl_seconds))
        days = self.days_of(memory_class)
        if days:
            candidates.append(created_at + timedelta(days=days))
        return min(candidates) if candidates else None

    def cutoffs(self, now: datetime) -> dict[MemoryClass, datetime]:
        """For each class with a retention: entries created before this moment have expired."""
        return {c: now - timedelta(days=self.days_of(c)) for c in MEMORY_CLASSES if self.days_of(c)}

    def as_dict(self) -> dict[str, int]:
        return {c: self.days_of(c) for c in MEMORY_CLASSES}


def is_expired(document: MemoryDocument, now: datetime) -> bool:
    """Its time has come (its own TTL or its class retention): never returned again, purged later."""
    return document.expires_at is not None and document.expires_at <= now


def memory_retention(settings: Settings) -> MemoryRetention:
    """The deployment's retention by class (``retention_days_memory_<class>``)."""
    return MemoryRetention({c: int(getattr(settings, f"retention_days_memory_{c}")) for c in MEMORY_CLASSES})
