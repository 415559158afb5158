"""The claim of an entry's version for one conditional change (``ItemMemoryRevisions.claim``): one claimer per
version, a claim left by a change that never finished taken over after ``CLAIM_STALE``, never shown as history,
erased with the owner's revisions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mneme.adapters.dynamo.items import MAIN_SCHEMA
from mneme.adapters.dynamo.memory_revisions import CLAIM_STALE, ItemMemoryRevisions
from tests.fakes.items import MemoryItemTable

NOW = datetime(2026, 12, 1, 9, tzinfo=UTC)


def test_a_version_is_claimed_once() -> None:
    revisions = ItemMemoryRevisions(MemoryItemTable(MAIN_SCHEMA))
    assert revisions.claim("alice", "d1", '"abc"', now=NOW)
    assert not revisions.claim("alice", "d1", '"abc"', now=NOW + timedelta(seconds=1))
    assert revisions.claim("alice", "d1", '"def"', now=NOW)  # another version
    assert revisions.claim("alice", "d2", '"abc"', now=NOW)  # another entry


def test_a_released_or_stale_claim_is_claimed_again() -> None:
    revisions = ItemMemoryRevisions(MemoryItemTable(MAIN_SCHEMA))
    assert revisions.claim("alice", "d1", '"abc"', now=NOW)
    revisions.release("alice", "d1", '"abc"')
    assert revisions.claim("alice", "d1", '"abc"', now=NOW)
    assert not revisions.claim("alice", "d1", '"abc"', now=NOW + CLAIM_STALE - timedelta(seconds=1))
    assert revisions.claim("alice", "d1", '"abc"', now=NOW + CLAIM_STALE + timedelta(seconds=1))


def test_claims_are_no_history_and_go_with_the_owners_revisions() -> None:
    table = MemoryItemTable(MAIN_SCHEMA)
    revisions = ItemMemoryRevisions(table)
    revisions.claim("alice", "d1", '"abc"', now=NOW)
    assert revisions.history("alice", "d1") == [] and revisions.owned("alice") == []
    revisions.erase("alice")
    assert revisions.claim("alice", "d1", '"abc"', now=NOW)  # it was removed
    revisions.forget("alice", ["d1"])
    assert revisions.claim("alice", "d1", '"abc"', now=NOW)
