"""The embedded store keeps each namespace's keyword statistics until the namespace changes (issue 30.7): a
search recounts nothing it counted before, a write recounts its own namespace only, an expiry recounts."""

from __future__ import annotations

from mneme_local.vector_store import EmbeddedVectorStore
from tests.functional.memory.conftest import NOW, doc, later, unit

ALICE, BOB = "vector.user.alice.memory", "vector.user.bob.memory"


def _store(tmp_path) -> EmbeddedVectorStore:
    store = EmbeddedVectorStore(tmp_path / "memory.sqlite3")
    store.put([(doc(f"Kate paints on day {i}."), unit(1, i)) for i in range(5)])
    store.put([(doc(f"Kate paints on day {i}.", BOB), unit(1, i)) for i in range(5)])
    return store


def test_a_second_search_recounts_nothing(tmp_path) -> None:
    store = _store(tmp_path)
    first = store.keyword_matches(["kate", "paints"], [ALICE], 10, now=NOW)
    recounts = store._keyword_stats.recounts
    again = store.keyword_matches(["kate", "paints"], [ALICE], 10, now=NOW)
    assert store._keyword_stats.recounts == recounts
    assert (
        (again.total_documents, again.doc_freq)
        == (first.total_documents, first.doc_freq)
        == (5, {"kate": 5, "paints": 5})
    )


def test_a_write_recounts_its_own_namespace_and_the_counts_follow_it(tmp_path) -> None:
    store = _store(tmp_path)
    store.keyword_matches(["kate"], [ALICE], 10, now=NOW)
    recounts = store._keyword_stats.recounts
    store.put([(doc("Kate again."), unit(1))])
    assert store.keyword_matches(["kate"], [ALICE], 10, now=NOW).doc_freq == {"kate": 6}
    assert store._keyword_stats.recounts == recounts + 1


def test_another_users_write_recounts_nothing_of_alices(tmp_path) -> None:
    store = _store(tmp_path)
    store.keyword_matches(["kate"], [ALICE], 10, now=NOW)
    recounts = store._keyword_stats.recounts
    store.put([(doc("Kate once more.", BOB), unit(1))])
    assert store.keyword_matches(["kate"], [ALICE], 10, now=NOW).doc_freq == {"kate": 5}
    assert store._keyword_stats.recounts == recounts


def test_a_delete_and_an_expiry_are_counted(tmp_path) -> None:
    store = EmbeddedVectorStore(tmp_path / "memory.sqlite3")
    keep, gone, fading = doc("Kate one."), doc("Kate two."), doc("Kate three.", expires_at=later(hours=1))
    store.put([(keep, unit(1)), (gone, unit(1, 1)), (fading, unit(1, 2))])
    assert store.keyword_matches(["kate"], [ALICE], 10, now=NOW).total_documents == 3
    store.soft_delete(gone.id, ALICE, now=NOW)
    assert store.keyword_matches(["kate"], [ALICE], 10, now=NOW).doc_freq == {"kate": 2}
    assert store.keyword_matches(["kate"], [ALICE], 10, now=later(hours=2)).doc_freq == {"kate": 1}
