"""Memory retention by class (pure): an entry's expiry is the earlier of its own TTL and its class's
retention; classes without a retention never expire; the purge's cutoffs name only classes with one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mneme.memory.entry_retention import MemoryRetention, is_expired, memory_retention
from mneme.models.memory import MemoryDocument, default_class
from mneme.settings import Settings

NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
KEPT_A_YEAR = MemoryRetention({"episodic": 365})


def test_an_entry_of_a_class_with_a_retention_expires_that_many_days_after_its_creation() -> None:
    assert KEPT_A_YEAR.expires_at(NOW, "episodic") == NOW + timedelta(days=365)


def test_an_entry_of_a_class_without_a_retention_never_expires() -> None:
    assert KEPT_A_YEAR.expires_at(NOW, "semantic") is None


def test_a_shorter_ttl_of_its_own_wins_over_the_class_retention() -> None:
    assert KEPT_A_YEAR.expires_at(NOW, "episodic", ttl_seconds=3600) == NOW + timedelta(hours=1)


def test_a_longer_ttl_of_its_own_does_not_outlive_the_class_retention() -> None:
    assert KEPT_A_YEAR.expires_at(NOW, "episodic", ttl_seconds=400 * 86_400) == NOW + timedelta(days=365)


def test_the_cutoffs_name_only_the_classes_with_a_retention() -> None:
    assert KEPT_A_YEAR.cutoffs(NOW) == {"episodic": NOW - timedelta(days=365)}
    assert MemoryRetention().cutoffs(NOW) == {}


def test_the_settings_give_the_retention_of_every_class() -> None:
    settings = Settings.from_env({"MNEME_RETENTION_DAYS_MEMORY_DOCUMENT": "30"})
    assert memory_retention(settings).as_dict() == {
        "episodic": 0,
        "semantic": 0,
        "preference": 0,
        "procedural": 0,
        "document": 30,
    }


def test_an_entry_is_expired_from_its_expiry_on() -> None:
    entry = MemoryDocument(
        id="m", namespace="vector.user.a.memory", owner_user_id="a", content="c", content_hash="h",
        created_at=NOW, updated_at=NOW, expires_at=NOW + timedelta(days=1),
    )  # fmt: skip
    assert not is_expired(entry, NOW)
    assert is_expired(entry, NOW + timedelta(days=1))


def test_the_default_class_follows_the_writers_source() -> None:
    assert [default_class(s) for s in ("run_input", "run_output", "auto_write", "http", "tool", None)] == [
        "episodic",
        "episodic",
        "episodic",
        "document",
        "semantic",
        "semantic",
    ]
