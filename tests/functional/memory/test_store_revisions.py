"""Revisions over every memory store (issue 35.3): the revisioned store keeps one immutable revision per change
— create, update, supersede, restore, delete, a refresh — whichever store holds the entries (the embedded store,
the OpenSearch adapter on osmem-server, S3 Vectors on its stand-in, the in-memory fake), the revisions in the
item table under the owner's key."""

from __future__ import annotations

from typing import Any

from mneme.adapters.dynamo.items import MAIN_SCHEMA
from mneme.adapters.dynamo.memory_revisions import ItemMemoryRevisions
from mneme.engine.memory_io.revisions import RevisionedMemoryStore, acting
from tests.fakes.items import MemoryItemTable
from tests.functional.memory.conftest import NOW, doc, later, unit

NS = "vector.user.alice.memory"


class _Clock:
    def __init__(self) -> None:
        self.at = NOW

    def now(self) -> Any:
        return self.at


def _revisioned(store: Any) -> tuple[RevisionedMemoryStore, ItemMemoryRevisions, _Clock]:
    revisions, clock = ItemMemoryRevisions(MemoryItemTable(MAIN_SCHEMA)), _Clock()
    return RevisionedMemoryStore(store, revisions, clock), revisions, clock


def test_each_change_is_one_revision_with_the_entry_as_it_was(store) -> None:
    revisioned, revisions, clock = _revisioned(store)
    entry = doc("alice lives in Porto", metadata={"source": "http", "user_id": "alice"})
    (doc_id,) = revisioned.put([(entry, unit(1))])
    with acting("user", "alice"):
        clock.at = later(minutes=1)
        revisioned.update(doc_id, NS, content="alice lives in Lisbon", tags=None, vector=unit(1, 1), now=clock.at)
        clock.at = later(minutes=2)
        revisioned.set_status(doc_id, NS, status="superseded", superseded_by=None, now=clock.at)
        clock.at = later(minutes=3)
        revisioned.set_status(doc_id, NS, status="active", superseded_by=None, now=clock.at)
        clock.at = later(minutes=4)
        revisioned.soft_delete(doc_id, NS, now=clock.at)
    history = revisions.history("alice", doc_id)
    assert [r.change for r in history] == ["create", "update", "supersede", "restore", "delete"]
    assert [r.document.content for r in history[:2]] == ["alice lives in Porto", "alice lives in Lisbon"]
    assert [r.document.status for r in history] == ["active", "active", "superseded", "active", "deleted"]
    assert {(r.by, r.actor) for r in history} == {("user", "alice")}


def test_setting_the_same_status_again_is_no_revision(store) -> None:
    revisioned, revisions, _ = _revisioned(store)
    (doc_id,) = revisioned.put([(doc("alice lives in Porto"), unit(1))])
    revisioned.set_status(doc_id, NS, status="active", superseded_by=None, now=NOW)
    assert [r.change for r in revisions.history("alice", doc_id)] == ["create"]


def test_a_run_tool_entry_is_created_by_its_agent_run(store) -> None:
    revisioned, revisions, _ = _revisioned(store)
    entry = doc("alice lives in Porto", metadata={"source": "tool", "run_id": "run-7"})
    (doc_id,) = revisioned.put([(entry, unit(1))])
    (created,) = revisions.history("alice", doc_id)
    assert (created.by, created.actor) == ("agent_run", "run-7")


def test_an_erasure_of_the_owner_removes_only_their_revisions(store) -> None:
    revisioned, revisions, _ = _revisioned(store)
    revisioned.put([(doc("alice lives in Porto"), unit(1))])
    revisioned.put([(doc("bob lives in Oslo", "vector.user.bob.memory"), unit(0, 1))])
    assert revisions.erase("alice") == 1
    assert revisions.owned("alice") == [] and len(revisions.owned("bob")) == 1


def test_a_revision_of_an_expiring_entry_expires_with_it_and_a_lasting_ones_never(store) -> None:
    table = MemoryItemTable(MAIN_SCHEMA)
    revisioned = RevisionedMemoryStore(store, ItemMemoryRevisions(table), _Clock())
    (lasting,) = revisioned.put([(doc("alice lives in Porto"), unit(1))])
    (passing,) = revisioned.put([(doc("alice is in Rome this week", expires_at=later(days=7)), unit(0, 1))])
    items = {str(item["SK"]).split("#")[0]: item for item in table.query("MEMREV#alice").items}
    assert items[passing]["expires_at"] == int(later(days=7).timestamp())
    assert "expires_at" not in items[lasting]


def test_the_wrapper_passes_the_stores_capability_flags_through_and_can_be_copied() -> None:
    import copy

    from tests.fakes.memory_store import InMemoryMemoryStore

    inner = InMemoryMemoryStore()
    inner.keyword_search_available = False
    revisioned = RevisionedMemoryStore(inner, ItemMemoryRevisions(MemoryItemTable(MAIN_SCHEMA)), _Clock())
    assert revisioned.keyword_search_available is False
    assert copy.copy(revisioned).inner is inner


def test_an_entry_removed_for_good_takes_its_history_and_only_its_own(store) -> None:
    revisioned, revisions, _ = _revisioned(store)
    kept, gone = doc("alice lives in Porto"), doc("alice works in Lima")
    revisioned.put([(kept, unit(1)), (gone, unit(2))])
    revisioned.hard_delete([gone.id])
    assert revisions.history("alice", gone.id) == []
    assert [r.change for r in revisions.history("alice", kept.id)] == ["create"]


def test_many_entries_removed_for_good_take_their_histories_from_one_read_of_the_owners(store) -> None:
    revisioned, revisions, _ = _revisioned(store)
    entries = [doc(f"alice note number {n}") for n in range(12)]
    revisioned.put([(entry, unit(n + 1)) for n, entry in enumerate(entries)])
    revisioned.hard_delete([entry.id for entry in entries[2:]])
    assert sorted(r.doc_id for r in revisions.owned("alice")) == sorted(entry.id for entry in entries[:2])
