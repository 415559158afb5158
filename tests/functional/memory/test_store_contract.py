"""The MemoryStore contract, run against the fake, the embedded SQLite store and the OpenSearch adapter
(on osmem-server, its k-NN request answered by exact search over the adapter's own filter: see conftest).
"""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from mneme.adapters.opensearch.store import OpenSearchMemoryStore
from mneme.errors import MemoryUnavailable, NotFound
from mneme.memory.namespaces import own_namespaces
from mneme.models.memory import MemoryDocument
from mneme.namespace_grammar import matches
from mneme.ports.memory import MemoryStore
from mneme_local.vector_store import EmbeddedVectorStore
from tests.fakes.memory_store import InMemoryMemoryStore
from tests.functional.memory.conftest import NOW, doc, ids_of, later, make_store, unit


def test_find_returns_a_live_entry_by_id_alone(store: MemoryStore) -> None:
    # Given an entry, and a deleted one
    kept, gone = doc("kept", doc_id="k1"), doc("gone", doc_id="g1")
    store.put([(kept, unit(1)), (gone, unit(2))])
    store.soft_delete("g1", "vector.user.alice.memory", now=NOW)
    # Then find knows the live one by id, not the deleted or an unknown one
    found = store.find("k1")
    assert found is not None and found.namespace == "vector.user.alice.memory"
    assert store.find("g1") is None and store.find("nope") is None


def test_every_store_implements_the_port(tmp_path, os_client):
    stores: list[MemoryStore] = [  # checked by mypy: each class satisfies the Protocol
        InMemoryMemoryStore(),
        EmbeddedVectorStore(tmp_path / "m.sqlite3"),
        OpenSearchMemoryStore(os_client, index="unused", dimension=8),
    ]
    assert len(stores) == 3


def test_put_then_get_round_trips_every_field(store):
    entry = doc(
        "Alice prefers tea.",
        tags=["pref", "drink"],
        metadata={"source": "run_output", "agent_id": "helper", "run_id": "r-1", "extra": {"n": 1}},
        derived_from=["m-x"],
        expires_at=later(days=3),
    )
    assert store.put([(entry, unit(1))]) == [entry.id]
    assert store.get(entry.id, entry.namespace) == entry
    assert store.get(entry.id, "vector.user.bob.memory") is None
    assert store.get("m-unknown", entry.namespace) is None


def test_search_filters_exact_namespaces_and_ranks_by_similarity(store):
    a = doc("a", "vector.user.alice.memory")
    b = doc("b", "vector.user.alice.memory")
    c = doc("c", "vector.user.bob.memory")
    g = doc("g", "vector.global.howto")
    store.put([(a, unit(1, 0.2)), (b, unit(1, 1)), (c, unit(1)), (g, unit(1, 0.1))])
    found = store.search(unit(1), ["vector.user.alice.memory"], 10, now=NOW)
    assert ids_of(found) == [a.id, b.id]
    assert found[0].similarity == pytest.approx(float(np.dot(unit(1), unit(1, 0.2))), abs=1e-5)
    assert found[0].document == a
    both = store.search(unit(1), ["vector.user.alice.memory", "vector.global.howto"], 10, now=NOW)
    assert ids_of(both) == [g.id, a.id, b.id]
    assert store.search(unit(1), [], 10, now=NOW) == []
    assert store.search(unit(1), ["vector.user.carol.memory"], 10, now=NOW) == []


def test_negative_similarity_is_recovered(store):
    far = doc("opposite")
    store.put([(far, unit(-1, 0.5))])
    [hit] = store.search(unit(1), [far.namespace], 5, now=NOW)
    assert hit.similarity == pytest.approx(float(np.dot(unit(1), unit(-1, 0.5))), abs=1e-5)
    assert hit.similarity < 0


def test_k_limits_the_results(store):
    entries = [doc(f"entry {i}") for i in range(6)]
    store.put([(e, unit(1, i / 10)) for i, e in enumerate(entries)])
    assert ids_of(store.search(unit(1), ["vector.user.alice.*"], 3, now=NOW)) == [e.id for e in entries[:3]]
    assert len(store.search(unit(1), ["vector.user.alice.*"], 50, now=NOW)) == 6


def test_wildcards_match_whole_segments_only(store):
    mine = doc("mine", "vector.user.alice.memory")
    prefs = doc("prefs", "vector.user.alice.preferences")
    deep = doc("deep", "vector.user.alice.projects.p1")
    other = doc("other", "vector.user.alice2.memory")
    short = doc("short", "vector.user.al.memory")
    agent = doc("agent", "vector.agent.alice.memory")
    store.put([(e, unit(1, i / 10)) for i, e in enumerate([mine, prefs, deep, other, short, agent])])

    def found(*patterns: str) -> set[str]:
        return set(ids_of(store.search(unit(1), list(patterns), 20, now=NOW)))

    assert found("vector.user.alice.*") == {mine.id, prefs.id, deep.id}
    assert found("vector.user.al.*") == {short.id}
    assert found("vector.user.alice.projects.*") == {deep.id}
    assert found("vector.agent.alice.*", "vector.user.alice.memory") == {agent.id, mine.id}
    assert found("vector.user.*") == {mine.id, prefs.id, deep.id, other.id, short.id}


def test_expired_deleted_and_superseded_entries_are_never_found(store):
    live = doc("live")
    ttl = doc("ttl", expires_at=later(hours=1))
    gone = doc("gone", expires_at=NOW)
    old = doc("old", superseded=True)
    store.put([(live, unit(1)), (ttl, unit(1, 0.1)), (gone, unit(1, 0.2)), (old, unit(1, 0.3))])
    assert ids_of(store.search(unit(1), ["vector.user.alice.*"], 10, now=NOW)) == [live.id, ttl.id]
    assert ids_of(store.search(unit(1), ["vector.user.alice.*"], 10, now=later(hours=2))) == [live.id]


def test_filter_comes_before_top_k(store):
    """The best matches are expired: the top-k is still filled from the live entries."""
    dead = [doc(f"dead {i}", expires_at=NOW) for i in range(5)]
    alive = [doc(f"alive {i}") for i in range(3)]
    store.put([(e, unit(1)) for e in dead] + [(e, unit(1, 1 + i)) for i, e in enumerate(alive)])
    assert ids_of(store.search(unit(1), ["vector.user.alice.memory"], 2, now=NOW)) == [a.id for a in alive[:2]]


def test_identical_content_is_refreshed_in_place(store):
    first = doc("Alice prefers tea.", tags=["a"], expires_at=later(days=1))
    [first_id] = store.put([(first, unit(1))])
    again = doc("Alice prefers tea.", tags=["b", "a"], at=later(hours=1), expires_at=later(days=9))
    elsewhere = doc("Alice prefers tea.", "vector.agent.alice.memory")
    assert store.put([(again, unit(1)), (elsewhere, unit(1))]) == [first_id, elsewhere.id]
    refreshed = store.get(first_id, first.namespace)
    assert refreshed.tags == ["a", "b"]
    assert refreshed.updated_at == later(hours=1)
    assert refreshed.created_at == NOW
    assert refreshed.expires_at == later(days=9)
    assert store.get(again.id, first.namespace) is None
    assert ids_of(store.search(unit(1), [first.namespace], 10, now=NOW)) == [first_id]


def test_duplicates_within_one_batch_share_one_entry(store):
    one, two = doc("same", tags=["x"]), doc("same", tags=["y"])
    assert store.put([(one, unit(1)), (two, unit(1))]) == [one.id, one.id]
    assert store.get(one.id, one.namespace).tags == ["x", "y"]
    assert len(store.search(unit(1), [one.namespace], 10, now=NOW)) == 1


def _chunked(first_id: str, texts: list[str]) -> list[MemoryDocument]:
    """The chunks of one long document, linked as the engine links them (mneme.engine.memory_io.entries.chunked)."""
    ids = [first_id] + [f"{first_id}-{i}" for i in range(1, len(texts))]
    return [
        doc(
            text,
            doc_id=ids[i],
            derived_from=[] if i == 0 else [first_id],
            parent_id=None if i == 0 else first_id,
            chunk_index=i,
            chunk_count=len(texts),
        )
        for i, text in enumerate(texts)
    ]


def test_deleting_a_document_never_removes_a_chunk_another_document_owns(store):
    # Given two long documents whose second chunks are identical (and a single entry with that text too)
    shared = "The shared boilerplate paragraph."
    a = _chunked("doc-a", ["Alpha opening.", shared])
    b = _chunked("doc-b", ["Beta opening.", shared])
    single = doc(shared, doc_id="single")
    assert store.put([(d, unit(1, i)) for i, d in enumerate([*a, *b, single])]) == [d.id for d in [*a, *b, single]]
    # When document A is deleted
    deleted = store.soft_delete("doc-a", a[0].namespace, now=NOW)
    # Then A's own chunks go, B's chunk and the single entry stay
    assert sorted(deleted) == sorted(d.id for d in a)
    kept = store.get("doc-b-1", b[1].namespace)
    assert kept is not None and kept.content == shared and kept.derived_from == ["doc-b"]
    assert store.get("single", single.namespace) is not None
    # And a single entry with the same text still refreshes the single one, never a chunk
    again = doc(shared, at=later(minutes=1))
    assert store.put([(again, unit(1))]) == ["single"]


def test_a_chunk_written_again_under_its_id_is_rewritten_not_duplicated(store):
    # Given a long document's chunks (never merged by content), written twice with the same ids (a retry)
    chunks = _chunked("doc-r", ["Retried opening.", "Retried second part."])
    store.put([(d, unit(1, i)) for i, d in enumerate(chunks)])
    assert store.put([(d, unit(1, i)) for i, d in enumerate(chunks)]) == ["doc-r", "doc-r-1"]
    # Then each chunk is stored once
    found = store.search(unit(1, 1), [chunks[0].namespace], 10, now=NOW)
    assert sorted(ids_of(found)) == ["doc-r", "doc-r-1"]


def test_deleted_or_expired_entries_are_not_refreshed(store):
    first = doc("note")
    store.put([(first, unit(1))])
    store.soft_delete(first.id, first.namespace, now=NOW)
    second = doc("note")
    assert store.put([(second, unit(1))]) == [second.id]
    short = doc("brief", expires_at=NOW)
    store.put([(short, unit(1))])
    renewed = doc("brief", at=later(minutes=1))
    assert store.put([(renewed, unit(1))]) == [renewed.id]


def test_update_changes_content_tags_and_vector(store):
    entry = doc("Alice likes tea.", tags=["old"])
    other = doc("Bob", "vector.user.alice.memory")
    store.put([(entry, unit(1)), (other, unit(0, 1))])
    updated = store.update(
        entry.id,
        entry.namespace,
        content="Alice likes coffee.",
        tags=["new"],
        vector=unit(0, 0, 1),
        now=later(hours=1),
    )
    assert (updated.content, updated.tags, updated.updated_at) == (
        "Alice likes coffee.",
        ["new"],
        later(hours=1),
    )
    assert updated.content_hash != entry.content_hash
    assert store.get(entry.id, entry.namespace) == updated
    assert ids_of(store.search(unit(0, 0, 1), [entry.namespace], 1, now=NOW)) == [entry.id]
    only_tags = store.update(entry.id, entry.namespace, content=None, tags=["t"], vector=None, now=later(hours=2))
    assert (only_tags.content, only_tags.tags) == ("Alice likes coffee.", ["t"])
    with pytest.raises(NotFound):
        store.update("m-missing", entry.namespace, content="x", tags=None, vector=None, now=NOW)
    with pytest.raises(NotFound):
        store.update(entry.id, "vector.user.bob.memory", content="x", tags=None, vector=None, now=NOW)


def test_soft_delete_cascades_transitively_to_derived_entries(store):
    root = doc("root")
    child = doc("child", "vector.agent.alice.memory", derived_from=[root.id])
    grandchild = doc("grandchild", derived_from=["m-other", child.id])
    unrelated = doc("unrelated", derived_from=["m-other"])
    store.put([(root, unit(1)), (child, unit(1)), (grandchild, unit(1)), (unrelated, unit(1))])
    marked = store.soft_delete(root.id, root.namespace, now=later(minutes=5))
    assert marked[0] == root.id
    assert sorted(marked) == sorted([root.id, child.id, grandchild.id])
    patterns = ["vector.user.alice.*", "vector.agent.alice.*"]
    assert ids_of(store.search(unit(1), patterns, 10, now=later(minutes=6))) == [unrelated.id]
    assert store.get(child.id, child.namespace) is None
    with pytest.raises(NotFound):
        store.soft_delete(root.id, root.namespace, now=NOW)
    with pytest.raises(NotFound):
        store.update(grandchild.id, grandchild.namespace, content=None, tags=["x"], vector=None, now=NOW)


def test_the_entries_a_cascade_deleted_are_read_back_by_id_with_their_namespace_and_owner(store):
    root = doc("root")
    child = doc("child", "vector.agent.alice.memory", derived_from=[root.id])
    store.put([(root, unit(1)), (child, unit(1))])
    marked = store.soft_delete(root.id, root.namespace, now=later(minutes=5))
    found = store.entries([*marked, "m-missing"])
    assert [(d.id, d.namespace, d.owner_user_id, d.deleted) for d in found] == [
        (root.id, root.namespace, root.owner_user_id, True),
        (child.id, child.namespace, child.owner_user_id, True),
    ]
    assert store.entries([]) == []


def test_soft_delete_of_a_missing_entry_is_not_found(store):
    with pytest.raises(NotFound):
        store.soft_delete("m-missing", "vector.user.alice.memory", now=NOW)


# ------------------------------------------------------------------------------------------- acceptance
USERS = [f"u{i}" for i in range(100)]  # u1 is a string prefix of u10..u19: segment boundaries matter
DIM = 384


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(20261130)
    vectors = rng.standard_normal((10_000, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pick = random.Random(7)
    entries = []
    for i in range(10_000):
        user = USERS[i % 100]
        namespace = pick.choice(
            [f"vector.user.{user}.memory", f"vector.agent.{user}.memory", f"vector.user.{user}.preferences"]
            + (["vector.global.howto"] if i % 97 == 0 else [])
        )
        state = pick.random()
        extra = {"expires_at": NOW} if state < 0.03 else {"superseded": True} if state < 0.05 else {}
        entries.append(doc(f"entry {i}", namespace, doc_id=f"d{i:05d}", **extra))
    return entries, vectors


@pytest.mark.parametrize("kind", ["fake", "embedded", "opensearch-aoss", "s3vectors"])
def test_top_k_is_exact_over_the_callers_readable_namespaces(kind, corpus, tmp_path, request, index_name):
    entries, vectors = corpus
    client = None
    if kind.startswith("opensearch"):  # k-NN emulated over osmem's filter result; a fifth of the corpus
        client = request.getfixturevalue("os_client")
        entries, vectors = entries[:2000], vectors[:2000]
    store = make_store(kind, tmp_path, client, index_name, DIM)
    store.put([(e, v.tolist()) for e, v in zip(entries, vectors, strict=True)])
    rng = np.random.default_rng(5)
    for user in ["u1", "u10", "u42", "u99"]:
        patterns = own_namespaces(user)
        readable = [
            i
            for i, e in enumerate(entries)
            if any(matches(p, e.namespace) for p in patterns) and not e.superseded and e.expires_at is None
        ]
        for _ in range(5):
            query = rng.standard_normal(DIM).astype(np.float32)
            query /= np.linalg.norm(query)
            scores = vectors[readable] @ query
            expected = [entries[readable[j]].id for j in np.argsort(-scores)[:5]]
            found = store.search(query.tolist(), patterns, 5, now=NOW)
            assert ids_of(found) == expected
            assert all(c.document.owner_user_id in (user, "") for c in found)


# ------------------------------------------------------------------------------------------- embedded only
def test_embedded_state_survives_reopening(tmp_path):
    path = tmp_path / "data" / "memory.sqlite3"
    first = EmbeddedVectorStore(path)
    entry = doc("persisted", tags=["t"])
    first.put([(entry, unit(1))])
    first.close()
    reopened = EmbeddedVectorStore(path)
    assert reopened.get(entry.id, entry.namespace) == entry
    assert ids_of(reopened.search(unit(1), ["vector.user.alice.*"], 5, now=NOW)) == [entry.id]
    with pytest.raises(MemoryUnavailable):
        reopened.put([(doc("wrong size"), [1.0, 0.0])])


def test_embedded_store_is_thread_safe(tmp_path):
    store = EmbeddedVectorStore(tmp_path / "memory.sqlite3")
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(20):
                store.put([(doc(f"t{n} e{i}", f"vector.user.t{n}.memory"), unit(1, i))])
                assert store.search(unit(1), [f"vector.user.t{n}.*"], 3, now=NOW)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.search(unit(1), ["vector.user.*"], 1000, now=NOW)) == 160


def test_the_embedded_store_sees_what_another_connection_wrote_after_a_search(tmp_path) -> None:
    # Given two stores on one file, the first having searched (its vectors are cached in memory)
    path = tmp_path / "memory.sqlite3"
    first, second = EmbeddedVectorStore(path), EmbeddedVectorStore(path)
    first.put([(doc("old entry", doc_id="a"), unit(1))])
    assert ids_of(first.search(unit(1), ["vector.user.alice.*"], 5, now=NOW)) == ["a"]
    # When the other connection writes a closer entry
    second.put([(doc("new entry", doc_id="b"), unit(1, 0.01))])
    # Then the first store finds it on its next search
    assert set(ids_of(first.search(unit(1), ["vector.user.alice.*"], 5, now=NOW))) == {"a", "b"}


def test_identical_chunks_of_two_documents_stay_each_documents_own(store):
    # Issue 31.6: the content dedupe merged a chunk of B into A's identical chunk; deleting A then deleted B's
    shared = "The same boilerplate paragraph."
    a = [doc(f"A part {i}" if i else shared, chunk_count=2, chunk_index=i) for i in range(2)]
    b = [doc(shared, chunk_count=2, chunk_index=0), doc("B part 1", chunk_count=2, chunk_index=1)]
    store.put([(d, unit(1, i)) for i, d in enumerate(a)])
    ids = store.put([(d, unit(1, i)) for i, d in enumerate(b)])
    assert ids == [b[0].id, b[1].id]  # B's chunk is a row of its own
    store.soft_delete(a[0].id, a[0].namespace, now=NOW)
    assert store.get(b[0].id, b[0].namespace) is not None


def test_identical_whole_entries_are_still_refreshed_not_duplicated(store):
    # The other direction (SPEC §5.5): two whole entries with the same content are one entry
    first, again = doc("I like green tea."), doc("I like green tea.")
    assert store.put([(first, unit(1))]) == [first.id]
    assert store.put([(again, unit(1))]) == [first.id]
