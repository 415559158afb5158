"""The embedded store's keyword leg fetches a word's newest live rows of the caller's namespaces, and reads no more
of the word's rows than it keeps: FTS5 walks its posting list from the newest row down and stops at the limit."""

from __future__ import annotations

from mneme_local.vector_store import EmbeddedVectorStore
from tests.functional.memory.conftest import NOW, doc, unit

ALICE, BOB = "vector.user.alice.memory", "vector.user.bob.memory"


def _fill(store: EmbeddedVectorStore, alices: int, bobs: int) -> None:
    """Alice's and Bob's rows interleaved (a100 before b100), every one of them holding "garden"."""
    for start in range(0, max(alices, bobs), 100):
        rows = [
            (doc(f"{who}'s garden, day {i}.", namespace, doc_id=f"{who[0].lower()}{i}"), unit(1, i))
            for who, namespace, count in (("Alice", ALICE, alices), ("Bob", BOB, bobs))
            for i in range(start, min(start + 100, count))
        ]
        store.put(rows)


def _steps(store: EmbeddedVectorStore, limit: int) -> int:
    """SQLite virtual-machine instructions (in hundreds) of one keyword fetch, its statistics already counted."""
    store.keyword_matches(["garden"], [ALICE], limit, now=NOW)  # counts the namespace's statistics once
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    store._db.set_progress_handler(count, 100)
    try:
        store.keyword_matches(["garden"], [ALICE], limit, now=NOW)
    finally:
        store._db.set_progress_handler(None, 100)
    return steps


def test_a_word_brings_the_callers_newest_live_rows_first(tmp_path) -> None:
    store = EmbeddedVectorStore(tmp_path / "memory.sqlite3")
    _fill(store, 30, 30)
    store.soft_delete("a29", ALICE, now=NOW)  # her newest
    found = store.keyword_matches(["garden"], [ALICE], 5, now=NOW).documents
    assert [d.content for d in found] == [f"Alice's garden, day {i}." for i in (28, 27, 26, 25, 24)]


def test_a_common_word_costs_the_rows_kept_not_every_row_that_holds_it(tmp_path) -> None:
    few = EmbeddedVectorStore(tmp_path / "few.sqlite3")
    _fill(few, 40, 40)
    many = EmbeddedVectorStore(tmp_path / "many.sqlite3")
    _fill(many, 2_000, 2_000)  # 50 times the rows holding the word
    # checked: ordered by the joined row's rowid, SQLite read and sorted all 4,000 (883 against 20); the last
    # change of the namespace as MAX(seq) … GROUP BY read every log row of it (229 against 10)
    assert _steps(many, 10) < 2 * _steps(few, 10)
