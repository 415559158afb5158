"""The embedded store's in-memory indexes: what a write, a restart or another process costs (counted work),
and why the int8 scan never changes the answer (exact re-rank with a proven bound)."""

from __future__ import annotations

import sqlite3
import stat
from typing import Any

import faiss
import numpy as np
import pytest

from mneme_local.vector_store import EmbeddedVectorStore
from tests.functional.memory.conftest import NOW, doc, ids_of, later

DIM = 32
ALICE, BOB = "vector.user.alice.memory", "vector.user.bob.memory"


def vectors(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    normalized: np.ndarray = x / np.linalg.norm(x, axis=1, keepdims=True)
    return normalized


def fill(store: EmbeddedVectorStore, namespace: str, x: np.ndarray, prefix: str) -> list[str]:
    return store.put([(doc(f"{prefix} {i}", namespace, doc_id=f"{prefix}{i}"), v) for i, v in enumerate(x)])


def exact_ids(x: np.ndarray, prefix: str, query: np.ndarray, k: int) -> list[str]:
    """The exact top-k by float32 score, equal scores in id order (the store's order)."""
    scores = x @ query
    return sorted((f"{prefix}{i}" for i in range(len(x))), key=lambda d: (-scores[int(d[len(prefix) :])], d))[:k]


@pytest.fixture
def path(tmp_path):
    return tmp_path / "memory.sqlite3"


def test_a_write_updates_only_the_row_it_changed(path) -> None:
    # Given a searched namespace of 500 rows beside another namespace
    store = EmbeddedVectorStore(path)
    x = vectors(500)
    fill(store, ALICE, x, "a")
    fill(store, BOB, vectors(50, 2), "b")
    store.search(x[0], [ALICE], 5, now=NOW)
    assert (store.work.indexes_built, store.work.rows_read) == (1, 500)
    # When one entry is written to it
    store.put([(doc("new", ALICE, doc_id="new"), x[0])])
    # Then that one row is read (by the write, which brings the loaded index up to date), nothing is
    # rebuilt, and the next search finds it
    assert "new" in ids_of(store.search(x[0], [ALICE], 5, now=NOW))
    assert (store.work.indexes_built, store.work.rows_read) == (1, 501)
    # And a write to another namespace costs alice's searches nothing
    fill(store, BOB, vectors(10, 3), "b2-")
    store.search(x[1], [ALICE], 5, now=NOW)
    assert (store.work.indexes_built, store.work.rows_read) == (1, 501)


def test_a_write_brings_the_loaded_index_up_to_date_so_the_next_search_replays_nothing(path) -> None:
    # Given a searched namespace of 300 rows
    store = EmbeddedVectorStore(path)
    x = vectors(300)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    # When 20 entries are written to it
    fill(store, ALICE, vectors(20, 4), "n")
    # Then the write itself read those 20 rows into the index
    assert (store.work.indexes_built, store.work.rows_read) == (1, 320)
    # And the next search reads no row to catch up, and finds them
    assert ids_of(store.search(vectors(20, 4)[3], [ALICE], 1, now=NOW)) == ["n3"]
    assert (store.work.indexes_built, store.work.rows_read) == (1, 320)


def test_a_write_to_a_namespace_never_searched_loads_nothing(path) -> None:
    store = EmbeddedVectorStore(path)
    fill(store, ALICE, vectors(100), "a")
    store.search(vectors(100)[0], [ALICE], 5, now=NOW)
    fill(store, BOB, vectors(30, 2), "b")
    assert (store.work.indexes_built, store.work.rows_read) == (1, 100)


def test_a_failed_catch_up_keeps_the_write_and_the_next_search_loads_the_index_again(path, monkeypatch) -> None:
    # Given a searched namespace, and an index that fails to take new rows once
    store = EmbeddedVectorStore(path)
    x = vectors(100)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    index_type = type(store._cache.indexes[ALICE])
    real_append = index_type.append
    failures = iter([MemoryError("no room")])

    def failing_append(self: Any, *args: Any) -> None:
        error = next(failures, None)
        if error is not None:
            raise error
        real_append(self, *args)

    monkeypatch.setattr(index_type, "append", failing_append)
    # When an entry is written
    assert store.put([(doc("new", ALICE, doc_id="new"), x[0])]) == ["new"]
    # Then it is stored, and the next search loads the dropped index again (its snapshot, then the log) and finds it
    assert store.find("new") is not None
    assert store.work.snapshots_loaded == 0
    assert "new" in ids_of(store.search(x[0], [ALICE], 2, now=NOW))
    assert (store.work.snapshots_loaded, store.work.indexes_built) == (1, 1)


def test_a_deleted_entry_leaves_the_index_without_a_rebuild(path) -> None:
    store = EmbeddedVectorStore(path)
    x = vectors(200)
    fill(store, ALICE, x, "a")
    assert ids_of(store.search(x[7], [ALICE], 1, now=NOW)) == ["a7"]
    store.soft_delete("a7", ALICE, now=NOW)
    assert "a7" not in ids_of(store.search(x[7], [ALICE], 200, now=NOW))
    assert store.work.indexes_built == 1 and store.work.rows_read == 200  # the dead row is not read again


def test_another_process_write_is_applied_row_by_row(path) -> None:
    # Given two stores on one file, the first having searched
    first, second = EmbeddedVectorStore(path), EmbeddedVectorStore(path)
    x = vectors(300)
    fill(first, ALICE, x, "a")
    first.search(x[0], [ALICE], 5, now=NOW)
    read = first.work.rows_read
    # When the other one writes an entry closest to the query
    second.put([(doc("closest", ALICE, doc_id="closest"), x[0])])
    # Then the first finds it after reading that single row
    assert ids_of(first.search(x[0], [ALICE], 1, now=NOW)) in (["closest"], ["a0"])
    assert "closest" in ids_of(first.search(x[0], [ALICE], 2, now=NOW))
    assert first.work.rows_read == read + 1 and first.work.indexes_built == 1


def test_a_restart_loads_the_saved_index_instead_of_every_vector(path) -> None:
    # Given a store that built and saved alice's index, then took two more writes before closing
    store = EmbeddedVectorStore(path)
    x = vectors(400)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    assert store.work.snapshots_saved == 1
    store.put([(doc("late 1", ALICE, doc_id="late1"), x[1]), (doc("late 2", ALICE, doc_id="late2"), x[2])])
    store.close()
    # When a new process opens the file and searches
    reopened = EmbeddedVectorStore(path)
    found = reopened.search(x[1], [ALICE], 2, now=NOW)
    # Then it loaded a snapshot, read no vector to build, and the answer includes the late writes
    assert reopened.work.indexes_built == 0 and reopened.work.snapshots_loaded == 1
    assert reopened.work.rows_read == 0  # close() saved the tail too
    assert set(ids_of(found)) == {"a1", "late1"}


def test_the_saved_indexes_are_private_like_the_database(path) -> None:
    # the README: the data folder's files are 0600 (and what mneme creates in it 0700), an existing folder
    # such as /tmp included; a snapshot holds the vectors of every user's memories
    store = EmbeddedVectorStore(path)
    x = vectors(100)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)  # builds and saves alice's index
    store.close()
    snapshots = path.parent / f"{path.name}.vectors"
    assert stat.S_IMODE(snapshots.stat().st_mode) == 0o700
    files = list(snapshots.iterdir())
    assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)


def test_a_restart_after_a_crash_replays_only_the_log_tail(path) -> None:
    store = EmbeddedVectorStore(path)
    x = vectors(400)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    store.put([(doc("late", ALICE, doc_id="late"), x[3])])
    store._db.close()  # no close(): the process died
    reopened = EmbeddedVectorStore(path)
    assert "late" in ids_of(reopened.search(x[3], [ALICE], 2, now=NOW))
    assert (reopened.work.snapshots_loaded, reopened.work.indexes_built, reopened.work.rows_read) == (1, 0, 1)


def test_a_damaged_snapshot_is_rebuilt_from_the_rows(path) -> None:
    store = EmbeddedVectorStore(path)
    x = vectors(100)
    fill(store, ALICE, x, "a")
    expected = ids_of(store.search(x[5], [ALICE], 5, now=NOW))
    store.close()
    for file in (path.parent / f"{path.name}.vectors").iterdir():
        file.write_bytes(b"not an index")
    reopened = EmbeddedVectorStore(path)
    assert ids_of(reopened.search(x[5], [ALICE], 5, now=NOW)) == expected
    assert reopened.work.indexes_built == 1 and reopened.work.rows_read == 100


def test_a_warm_search_runs_no_namespace_scan(path) -> None:
    # Given a searched store, and every SQL statement traced
    store = EmbeddedVectorStore(path)
    x = vectors(300)
    fill(store, ALICE, x, "a")
    store.search(x[0], ["vector.user.alice.*"], 5, now=NOW)
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    # When it searches again
    store.search(x[1], ["vector.user.alice.*"], 5, now=NOW)
    # Then no statement lists namespaces from the memory rows or reads a namespace's rows
    assert statements and not any("DISTINCT" in s for s in statements)
    assert not any("FROM memory WHERE namespace" in s for s in statements)


def test_near_ties_below_the_int8_step_still_give_the_exact_order(path) -> None:
    # Given 2,000 vectors whose scores differ by less than the int8 codes can tell apart (but far more than
    # float32 rounding)
    rng = np.random.default_rng(9)
    base = vectors(1)[0]
    x = base + 3e-3 * rng.standard_normal((2000, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    store = EmbeddedVectorStore(path)
    fill(store, ALICE, x, "a")
    query = base + 1e-2 * rng.standard_normal(DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    # Then the top-10 is the exact one, because the re-rank widened until the bound proved it
    assert ids_of(store.search(query, [ALICE], 10, now=NOW)) == exact_ids(x, "a", query, 10)
    assert store.work.rows_reranked > 40  # more than the first 4·k candidates were scored exactly


def test_an_entry_outside_the_fitted_range_is_still_found(path) -> None:
    # Given an index fitted on small components, then an entry with one large component
    store = EmbeddedVectorStore(path)
    small = vectors(200) * 0.1
    fill(store, ALICE, small, "a")
    store.search(small[0], [ALICE], 1, now=NOW)
    spike = [0.0] * DIM
    spike[3] = 1.0
    store.put([(doc("spike", ALICE, doc_id="spike"), spike)])
    # Then a query along that axis finds it first
    assert ids_of(store.search(spike, [ALICE], 1, now=NOW)) == ["spike"]


def test_an_expired_entry_is_excluded_during_the_scan(path) -> None:
    store = EmbeddedVectorStore(path)
    x = vectors(100)
    fill(store, ALICE, x[1:], "a")
    store.put([(doc("soon gone", ALICE, doc_id="gone", expires_at=later(hours=1)), x[0])])
    assert ids_of(store.search(x[0], [ALICE], 1, now=NOW)) == ["gone"]
    assert ids_of(store.search(x[0], [ALICE], 1, now=later(hours=2))) != ["gone"]
    assert len(store.search(x[0], [ALICE], 1, now=later(hours=2))) == 1


def test_many_deletions_compact_the_index_and_keep_the_answers_exact(path) -> None:
    store = EmbeddedVectorStore(path)
    x = vectors(400)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    for i in range(0, 400, 2):
        store.soft_delete(f"a{i}", ALICE, now=NOW)
    found = ids_of(store.search(x[11], [ALICE], 10, now=NOW))
    odd = [i for i in range(400) if i % 2]
    assert found == sorted((f"a{i}" for i in odd), key=lambda d: (-(x[int(d[1:])] @ x[11]), d))[:10]
    assert store._cache.indexes[ALICE].size < 400  # dead positions were compacted away


@pytest.mark.parametrize(("deleted", "selectors"), [(12, 0), (300, 1)])
def test_dead_rows_never_reach_the_answer_with_or_without_a_selector(
    path, monkeypatch: pytest.MonkeyPatch, deleted: int, selectors: int
) -> None:
    # Given 2,000 rows of which the nearest ones to the query are deleted: a few (over-fetched and dropped)
    # or more than FEW_UNUSABLE (skipped by faiss' bitmap selector while scanning), below compaction
    store = EmbeddedVectorStore(path)
    x = vectors(2000)
    fill(store, ALICE, x, "a")
    query = x[5]
    store.search(query, [ALICE], 10, now=NOW)  # the index is built from the rows before the deletions
    nearest = np.argsort(-(x @ query), kind="stable")[:deleted]
    for i in nearest:
        store.soft_delete(f"a{i}", ALICE, now=NOW)
    made: list[object] = []
    real = faiss.IDSelectorBitmap

    def counting(*args: Any) -> Any:
        made.append(args)
        return real(*args)

    monkeypatch.setattr(faiss, "IDSelectorBitmap", counting)
    # When the caller asks for the top 10
    found = ids_of(store.search(query, [ALICE], 10, now=NOW))
    # Then the answer is the exact top 10 of the live rows, and a selector was made only for the many
    live = [i for i in range(2000) if i not in set(nearest.tolist())]
    assert found == sorted((f"a{i}" for i in live), key=lambda d: (-(x[int(d[1:])] @ query), d))[:10]
    assert len(made) == selectors
    assert store._cache.indexes[ALICE].size == 2000  # not compacted: the dead rows are still scanned


def test_the_int8_kernel_multiplies_integer_queries_exactly() -> None:
    # The bound assumes faiss scores an integer query against the codes by the exact integer dot product
    rng = np.random.default_rng(3)
    codes = rng.integers(-127, 128, (500, 384)).astype(np.float32)
    query = rng.integers(-127, 128, 384).astype(np.float32)
    index = faiss.IndexScalarQuantizer(384, faiss.ScalarQuantizer.QT_8bit_direct_signed, faiss.METRIC_INNER_PRODUCT)
    index.train(np.zeros((1, 384), dtype=np.float32))
    index.add(codes)
    distances, labels = index.search(query[None], 500)
    assert np.array_equal(distances[0], (codes.astype(np.int64) @ query.astype(np.int64))[labels[0]])


def test_an_old_file_without_the_namespace_table_is_migrated(path) -> None:
    store = EmbeddedVectorStore(path)
    fill(store, ALICE, vectors(5), "a")
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM memory_namespaces")
        db.execute("DELETE FROM memory_snapshots")
    reopened = EmbeddedVectorStore(path)
    assert len(reopened.search(vectors(5)[0], ["vector.user.*"], 5, now=NOW)) == 5


def test_a_write_and_a_delete_find_their_positions_without_comparing_every_rowid(path) -> None:
    # Given a namespace indexed from its rows (positions in rowid order)
    store = EmbeddedVectorStore(path)
    x = vectors(600)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    index = store._cache.indexes[ALICE]
    # When a new entry is written, then an old one and the new one are deleted, each followed by a search
    store.put([(doc("new", ALICE, doc_id="new"), x[3])])
    assert "new" in ids_of(store.search(x[3], [ALICE], 5, now=NOW))
    store.soft_delete("a3", ALICE, now=NOW)
    store.soft_delete("new", ALICE, now=NOW)
    found = ids_of(store.search(x[3], [ALICE], 5, now=NOW))
    # Then the deleted ones are gone from the answer, and no kill compared every position's rowid
    assert found == [d for d in exact_ids(x, "a", x[3], 6) if d != "a3"][:5]
    assert (index.kill_scans, index.live) == (0, 599)


def test_after_an_updated_vector_comes_back_out_of_order_a_delete_still_finds_its_row(path) -> None:
    # Given an indexed namespace in which one row's vector was replaced: its position moves to the end
    store = EmbeddedVectorStore(path)
    x = vectors(600)
    fill(store, ALICE, x, "a")
    store.search(x[0], [ALICE], 5, now=NOW)
    store.update("a7", ALICE, content=None, tags=None, vector=x[100], now=NOW)
    store.search(x[0], [ALICE], 5, now=NOW)
    index = store._cache.indexes[ALICE]
    scans = index.kill_scans
    # When another row, now before it in the positions, is deleted
    store.soft_delete("a8", ALICE, now=NOW)
    found = ids_of(store.search(x[8], [ALICE], 3, now=NOW))
    # Then the kill compared the rowids (bisection needs ascending ones) and the row is gone from the answer
    assert index.kill_scans == scans + 1
    assert "a8" not in found and index.live == 599
    # And a7 answers with its new vector (the same as a100's: equal scores, in id order)
    assert ids_of(store.search(x[100], [ALICE], 2, now=NOW)) == ["a100", "a7"]


@pytest.mark.parametrize("changed", [1, 10, 100, 1000])
def test_a_replay_finds_its_changed_rows_by_rowid_never_by_scanning_the_namespace(tmp_path, changed) -> None:
    # Issue 30.7: from 10 changed rows on, SQLite chose the namespace index and read every row of it
    from mneme_local.vector_indexes import replay_sql
    from mneme_local.vector_store import EmbeddedVectorStore

    store = EmbeddedVectorStore(tmp_path / "plan.sqlite3")
    store._db.execute("ANALYZE")
    plan = store._db.execute("EXPLAIN QUERY PLAN " + replay_sql(changed), ["ns", *range(changed)]).fetchall()
    details = " ".join(row[-1] for row in plan)
    assert "INTEGER PRIMARY KEY (rowid=?)" in details and "SCAN" not in details
