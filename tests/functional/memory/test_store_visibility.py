"""Read-your-writes on a store that is not (issue 11.4): the OpenSearch adapter in Serverless mode with its
journal, in front of a stand-in that delays search visibility (``lagging.py``) by 0 s and by 60 s."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.dynamo.memory_journal import ItemMemoryJournal
from mneme.errors import MemoryUnavailable, NotFound
from tests.fakes.clock import FixedClock
from tests.fakes.items import MemoryItemTable
from tests.functional.memory.conftest import NOW, KnnEmulatingStore, doc, ids_of, unit
from tests.functional.memory.lagging import LaggingClient

ALICE = "vector.user.alice.memory"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


def _store(os_client, index_name, clock, delay: float, *, journal: bool = True) -> KnnEmulatingStore:
    lagging = LaggingClient(os_client, clock, delay)
    journaled = ItemMemoryJournal(MemoryItemTable(), clock) if journal else None
    client: Any = lagging  # the adapter's client, with search visibility delayed
    return KnnEmulatingStore(client, index=index_name, dimension=8, service="aoss", journal=journaled)


@pytest.fixture(params=[0, 60], ids=["no-delay", "60s-delay"])
def store(request, os_client, index_name, clock) -> KnnEmulatingStore:
    return _store(os_client, index_name, clock, request.param)


def test_a_write_then_a_delete_within_the_window_works(store, clock) -> None:
    entry = doc("Alice's locker code is 4471")
    store.put([(entry, unit(1))])
    clock.advance(seconds=5)
    assert store.soft_delete(entry.id, ALICE, now=clock.now()) == [entry.id]
    assert store.get(entry.id, ALICE) is None and store.find(entry.id) is None


def test_a_write_then_an_update_within_the_window_works(store, clock) -> None:
    entry = doc("Alice's locker code is 4471")
    store.put([(entry, unit(1))])
    updated = store.update(entry.id, ALICE, content="Alice's locker code is 9000", tags=None, vector=None, now=NOW)
    assert updated.content.endswith("9000")
    stored = store.get(entry.id, ALICE)
    assert stored is not None and stored.content.endswith("9000")


def test_a_deleted_entry_is_never_searched_again_while_the_index_still_shows_it(store, clock) -> None:
    entry = doc("wifi password zebra")
    store.put([(entry, unit(1))])
    clock.advance(seconds=61)  # indexed and visible
    assert ids_of(store.search(unit(1), [ALICE], 5, now=clock.now())) == [entry.id]
    store.soft_delete(entry.id, ALICE, now=clock.now())
    clock.advance(seconds=5)  # the index has not refreshed yet (60 s delay): the journal hides it
    assert store.search(unit(1), [ALICE], 5, now=clock.now()) == []
    assert store.keyword_search("wifi password", [ALICE], 5, now=clock.now()) == []


def test_a_superseded_entry_is_hidden_inside_the_window(store, clock) -> None:
    entry = doc("Alice lives in Porto")
    store.put([(entry, unit(1))])
    clock.advance(seconds=61)
    store.set_status(entry.id, ALICE, status="superseded", superseded_by="new", now=clock.now())
    clock.advance(seconds=5)
    assert store.search(unit(1), [ALICE], 5, now=clock.now()) == []


def test_identical_content_inside_the_window_is_refreshed_not_duplicated(store, clock) -> None:
    first, again = doc("Alice prefers tea", tags=["a"]), doc("Alice prefers tea", tags=["b"])
    assert store.put([(first, unit(1))]) == [first.id]
    clock.advance(seconds=5)
    assert store.put([(again, unit(1))]) == [first.id]
    clock.advance(seconds=120)
    [found] = store.search(unit(1), [ALICE], 5, now=clock.now())
    assert found.document.id == first.id and found.document.tags == ["a", "b"]


def test_a_users_listing_holds_an_entry_written_inside_the_window_once(store, clock) -> None:
    # Given an entry of alice's and one of bob's, written a moment ago (a search does not show them at 60 s)
    entry, bobs = doc("Alice's locker code is 4471"), doc("Bob likes tea", "vector.user.bob.memory")
    store.put([(entry, unit(1)), (bobs, unit(2))])
    clock.advance(seconds=5)
    # Then alice's listing (what an erasure and an export read) holds hers and not bob's
    assert [d.id for d in store.iter_owned("alice")] == [entry.id]
    # and once the index shows it too, still once
    clock.advance(seconds=61)
    assert [d.id for d in store.iter_owned("alice")] == [entry.id]


def test_a_users_listing_holds_an_entry_deleted_inside_the_window(store, clock) -> None:
    # Given an entry written and soft-deleted a moment ago (its deleted copy is still stored)
    entry = doc("Alice's locker code is 4471")
    store.put([(entry, unit(1))])
    store.soft_delete(entry.id, ALICE, now=clock.now())
    # Then the listing holds it, deleted, so that an erasure removes the stored copy for good
    assert [(d.id, d.status) for d in store.iter_owned("alice")] == [(entry.id, "deleted")]


def test_a_write_becomes_searchable_after_the_delay(os_client, index_name, clock) -> None:
    store = _store(os_client, index_name, clock, 60)
    entry = doc("Alice prefers tea")
    store.put([(entry, unit(1))])
    assert store.search(unit(1), [ALICE], 5, now=clock.now()) == []  # what the delay hides
    clock.advance(seconds=60)
    assert ids_of(store.search(unit(1), [ALICE], 5, now=clock.now())) == [entry.id]


def test_without_the_journal_a_delete_inside_the_window_is_not_found(os_client, index_name, clock) -> None:
    store = _store(os_client, index_name, clock, 60, journal=False)
    entry = doc("Alice's locker code is 4471")
    store.put([(entry, unit(1))])
    with pytest.raises(NotFound):
        store.soft_delete(entry.id, ALICE, now=clock.now())


def _writer(os_client: Any, index_name: str, clock: FixedClock) -> tuple[KnnEmulatingStore, Any]:
    from mneme.adapters.dynamo.audit_log import ItemAuditLog
    from mneme.adapters.dynamo.items import AUDIT_SCHEMA
    from mneme.adapters.models.offline import OfflineModel
    from mneme.engine.memory_io.writer import WriterPorts
    from tests.fakes.embedder import HashingEmbedder
    from tests.fakes.ports import FixedModels

    store = _store(os_client, index_name, clock, 60)
    audit = ItemAuditLog(MemoryItemTable(AUDIT_SCHEMA))
    return store, WriterPorts(store, HashingEmbedder(dimension=8), audit, clock, FixedModels(OfflineModel()))


def _extract(n: int, text: str) -> dict[str, str]:
    import json

    from mneme.ports.memory import MemoryWriteJob

    body = MemoryWriteJob(
        job_id=f"extract-{n}",
        namespace=ALICE,
        owner_user_id="alice",
        content=text,
        kind="extract",
        strategies=["facts"],
        metadata={"user_id": "alice", "run_id": f"r{n}"},
    )
    return {"messageId": f"m{n}", "body": json.dumps(body.__dict__), "eventSource": "aws:sqs"}


def _live_facts(store: KnnEmulatingStore, clock: FixedClock) -> list[str]:
    from tests.fakes.embedder import HashingEmbedder

    clock.advance(seconds=61)
    found = store.search(HashingEmbedder(dimension=8).vector("live"), [ALICE], 10, now=clock.now())
    return [c.document.content for c in found]


def test_consolidation_inside_one_writer_batch_holds_while_the_index_lags(os_client, index_name, clock) -> None:
    """Two runs' extractions in one batch: the second supersedes the first although no search shows it yet."""
    from mneme.engine.memory_io.writer import write_batch

    store, ports = _writer(os_client, index_name, clock)
    batch = [_extract(1, "I live in Porto."), _extract(2, "I now live in Lisbon.")]
    assert write_batch(ports, batch) == {"batchItemFailures": []}
    assert _live_facts(store, clock) == ["The user says: I now live in Lisbon."]


def test_consolidation_across_writer_batches_holds_while_the_index_lags(os_client, index_name, clock) -> None:
    """The second fact comes 5 s later in another batch: the journal's recent writes show the first one."""
    from mneme.engine.memory_io.writer import write_batch

    store, ports = _writer(os_client, index_name, clock)
    assert write_batch(ports, [_extract(1, "I live in Porto.")]) == {"batchItemFailures": []}
    clock.advance(seconds=5)
    assert write_batch(ports, [_extract(2, "I now live in Lisbon.")]) == {"batchItemFailures": []}
    assert _live_facts(store, clock) == ["The user says: I now live in Lisbon."]


def test_an_entry_deleted_for_good_leaves_nothing_in_the_journal(os_client, index_name, clock) -> None:
    # Given an entry written moments ago (its id, content hash and namespace listing are in the journal)
    table = MemoryItemTable()
    lagging: Any = LaggingClient(os_client, clock, 60)
    journal = ItemMemoryJournal(table, clock)
    store = KnnEmulatingStore(lagging, index=index_name, dimension=8, service="aoss", journal=journal)
    entry, other = doc("Alice's locker code is 4471"), doc("Alice likes tea", doc_id="other")
    store.put([(entry, unit(1)), (other, unit(2))])
    # When it is deleted for good (an erasure) inside the refresh window
    assert store.hard_delete([entry.id]) == 1
    # Then no journal item names it or holds its hash, and the other entry's stay
    left = [item for item in table._items.values() if entry.id in str(item) or entry.content_hash in str(item)]
    assert left == []
    assert list(journal.lookup([other.id])) == [other.id]


def test_entries_a_partly_failed_bulk_did_index_are_not_indexed_again_by_the_retry(
    os_client, os_admin, index_name, clock
):
    """OpenSearch answers a ``_bulk`` with some items failed as a whole success with ``errors: true``: the
    adapter raised before journaling the items that were indexed, so the writer's retry — inside the refresh
    window, where searches do not see them yet — indexed them a second time (two entries of one memory id)."""
    store = _store(os_client, index_name, clock, 60)
    kept, refused = doc("Alice's locker code is 4471"), doc("Alice likes tea", doc_id="other")
    with pytest.raises(MemoryUnavailable, match="rejected"):
        store.put([(kept, unit(1)), (refused, [1.0, 0.0])])  # the second vector has the wrong dimension
    clock.advance(seconds=5)
    store.put([(kept, unit(1)), (refused, unit(2))])  # the retry of the whole batch
    clock.advance(seconds=61)
    stored = os_admin.search(index=index_name, body={"query": {"match_all": {}}, "size": 10})["hits"]["hits"]
    assert sorted(hit["_source"]["memory_id"] for hit in stored) == sorted([kept.id, refused.id])
