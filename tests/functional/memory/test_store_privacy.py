"""The memory stores' owner-scoped listing, deletion for good and purge (exports, erasures, retention), run
against the fake, the embedded store, the OpenSearch adapter on osmem-server (both services) and the S3
Vectors adapter on its stand-in."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from mneme.adapters.opensearch.queries import to_source
from mneme.adapters.opensearch.store import OpenSearchMemoryStore
from mneme.adapters.s3vectors.store import S3VectorsMemoryStore
from mneme_local.vector_store import EmbeddedVectorStore
from tests.functional.memory.conftest import NOW, doc, ids_of, later, make_store, unit


def _everything(store: Any, os_client: Any = None) -> list[str]:
    """Every stored document id, read around the port (a scan of the index or table)."""
    if isinstance(store, OpenSearchMemoryStore):
        hits = store._query([{"match_all": {}}])
        return sorted(h["_source"]["memory_id"] for h in hits)
    if isinstance(store, EmbeddedVectorStore):
        return sorted(row[0] for row in store._db.execute("SELECT id FROM memory"))
    if isinstance(store, S3VectorsMemoryStore):  # the service's own listing, through the client
        pages = store._client.get_paginator("list_vectors").paginate(**store._target)
        return sorted(vector["key"] for page in pages for vector in page["vectors"])
    return sorted(store.documents)


def test_the_owner_listing_holds_every_status_and_nothing_of_others(store: Any) -> None:
    live, gone, old = doc("live", doc_id="a1"), doc("gone", doc_id="a2"), doc("old", doc_id="a3", superseded=True)
    expired = doc("expired", doc_id="a4", expires_at=NOW)
    agent = doc("agent", "vector.agent.alice.notes", doc_id="a5")
    bob = doc("bob", "vector.user.bob.memory", doc_id="b1")
    shared = doc("shared", "vector.global.howto", doc_id="g1", metadata={"user_id": "alice"})
    store.put([(d, unit(1, i / 10)) for i, d in enumerate([live, gone, old, expired, agent, bob, shared])])
    store.soft_delete("a2", live.namespace, now=NOW)
    assert [d.id for d in store.iter_owned("alice")] == ["a1", "a2", "a3", "a4", "a5"]
    assert [d.id for d in store.iter_owned("bob")] == ["b1"]
    assert [d.id for d in store.iter_authored("alice")] == ["g1"]  # the global entry alice wrote
    assert list(store.iter_authored("bob")) == []


def test_the_owner_listing_pages_through_many_entries(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mneme.adapters.opensearch.owned._SCAN_PAGE", 7)
    monkeypatch.setattr("mneme_local.vector_privacy.PAGE", 7)
    entries = [doc(f"entry {i}", doc_id=f"m{i:03d}") for i in range(30)]
    store.put([(e, unit(1, i / 50)) for i, e in enumerate(entries)])
    assert [d.id for d in store.iter_owned("alice")] == [e.id for e in entries]


def test_hard_delete_removes_the_entries_for_good_and_leaves_others(store: Any) -> None:
    mine = [doc(f"mine {i}", doc_id=f"a{i}") for i in range(3)]
    derived = doc("derived", doc_id="a9", derived_from=["a0"])
    bob = doc("bob's", "vector.user.bob.memory", doc_id="b1")
    store.put([(d, unit(1, i / 10)) for i, d in enumerate([*mine, derived, bob])])
    assert store.hard_delete(["a0", "a1", "a2", "a9", "a-unknown"]) == 4
    assert _everything(store) == ["b1"]
    assert store.get("a0", mine[0].namespace) is None and store.find("a1") is None
    assert store.search(unit(1), ["vector.user.alice.*"], 10, now=NOW) == []
    assert ids_of(store.search(unit(1), ["vector.user.bob.memory"], 10, now=NOW)) == ["b1"]


def test_the_purge_removes_expired_entries_and_those_past_their_class_retention(store: Any) -> None:
    old_episode = doc("old episode", doc_id="e1", memory_class="episodic", at=later(days=-400))
    new_episode = doc("new episode", doc_id="e2", memory_class="episodic", at=later(days=-10))
    old_fact = doc("old fact", doc_id="s1", memory_class="semantic", at=later(days=-400))
    ttl = doc("ttl", doc_id="t1", expires_at=later(hours=-1))
    store.put([(d, unit(1, i / 10)) for i, d in enumerate([old_episode, new_episode, old_fact, ttl])])
    assert store.purge_expired(NOW, {"episodic": later(days=-365)}) == 2
    assert _everything(store) == ["e2", "s1"]


def test_the_memory_class_round_trips(store: Any) -> None:
    entry = doc("a preference", memory_class="preference")
    store.put([(entry, unit(1))])
    found = store.get(entry.id, entry.namespace)
    assert found is not None and found.memory_class == "preference"


def test_an_opensearch_entry_stored_without_a_class_has_its_sources_default(
    os_client: Any, os_admin: Any, index_name: str
) -> None:
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="es")
    entry = doc("from a run", doc_id="r1", metadata={"source": "run_output"}, at=later(days=-400))
    store.ensure_index()
    fact = doc("from a tool", doc_id="f1", metadata={"source": "tool"}, at=later(days=-400))
    for stored in (entry, fact):  # as stored before the class existed
        legacy = {k: v for k, v in to_source(stored, unit(1)).items() if k != "memory_class"}
        os_admin.index(index=index_name, id=stored.id, body=legacy, refresh=True)
    assert [(d.id, d.memory_class) for d in store.iter_owned("alice")] == [("f1", "semantic"), ("r1", "episodic")]
    assert store.purge_expired(NOW, {"episodic": later(days=-365)}) == 1  # purged by its default class
    assert [d.id for d in store.iter_owned("alice")] == ["f1"]
    assert store.purge_expired(NOW, {"semantic": later(days=-365)}) == 1


def test_an_embedded_file_from_before_the_class_is_migrated(tmp_path: Any) -> None:
    path = tmp_path / "old.sqlite3"
    store = EmbeddedVectorStore(path)
    store.put([(doc("an upload", doc_id="d1", metadata={"source": "http"}), unit(1))])
    store.close()
    db = sqlite3.connect(path)  # as a file written before the column existed
    db.execute("ALTER TABLE memory DROP COLUMN memory_class")
    db.commit()
    db.close()
    reopened = EmbeddedVectorStore(path)
    [found] = reopened.iter_owned("alice")
    assert found.memory_class == "document"  # NULL is read as the source's default
    columns = [row[1] for row in reopened._db.execute("PRAGMA table_info(memory)")]
    assert "memory_class" in columns
    assert json.loads(reopened._db.execute("SELECT metadata FROM memory").fetchone()[0]) == {"source": "http"}


def test_the_embedded_deletion_tells_the_store_of_each_row_it_removes(tmp_path: Any) -> None:
    from mneme_local import vector_privacy

    store = EmbeddedVectorStore(tmp_path / "m.sqlite3")
    store.put([(doc("one", doc_id="a1"), unit(1)), (doc("two", "vector.agent.alice.notes", doc_id="a2"), unit(2))])
    told: list[tuple[str, int]] = []
    with store._write() as db:
        removed = vector_privacy.delete_rows(db, ["a1", "a2", "gone"], lambda _db, ns, row: told.append((ns, row)))
    assert removed == 2
    assert sorted(ns for ns, _ in told) == ["vector.agent.alice.notes", "vector.user.alice.memory"]
    assert all(isinstance(row, int) for _, row in told)


def test_hard_delete_leaves_no_copy_in_the_embedded_keyword_index(tmp_path: Any) -> None:
    # Given an embedded store holding alice's entry (its content is also in the FTS5 keyword index)
    store = make_store("embedded", tmp_path, None, "memory", 8)
    store.put([(doc("my passport number is zebra-1234", doc_id="a1"), unit(1, 0.1))])
    store.put([(doc("bob keeps his own words", "vector.user.bob.memory", doc_id="b1"), unit(1, 0.2))])
    # When it is deleted for good (an erasure, a purge)
    store.hard_delete(["a1"])
    # Then no row of the keyword index holds its words, and bob's stays
    fts = [row[0] for row in store._db.execute("SELECT content FROM memory_fts")]
    assert fts == ["bob keeps his own words"]
