"""Per-user keyword statistics (issue 30.3), over every store: another user's documents change nothing in a
user's keyword or hybrid hits — not the ids, not the order, not the scores.

Before, the keyword leg scored with the index's own BM25 statistics (SQLite FTS5 ``bm25()``, OpenSearch's
per-shard ones): after bob stored 40 entries containing "ZK-4471", alice's own matching entry fell from keyword
rank 1 to 8, and every ``keyword_score`` told alice how common a word was in other users' memories.
"""

from __future__ import annotations

import pytest

from mneme.engine.memory_io.retrieval import retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.memory.access import ReadAccess
from mneme.memory.keyword_scoring import KeywordSearch
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, unit

ALICE = "vector.user.alice.memory"
BOB = "vector.user.bob.memory"


def _alice_world(store) -> None:
    entries = [
        "Ticket ZK-4471 is the login outage we fixed on Monday.",
        "The deploy of the billing service moved to Thursday.",
        "My sister Kate paints landscapes on weekends.",
        "ZK-4471 review: the root cause was an expired certificate.",
        "Lunch was a banana bread from the corner bakery.",
        "We argued about the ticket priorities for an hour.",
    ]
    store.put([(doc(text), unit(1, i / 7)) for i, text in enumerate(entries)])


def _bob_floods(store) -> None:
    entries = [f"ZK-4471 ZK-4471 ticket login certificate note {i}" for i in range(40)]
    entries += [f"Kate paints, Kate paints landscapes {i}" for i in range(10)]
    store.put([(doc(text, BOB), unit(1, 0.05)) for text in entries])


def _keyword(store, query: str) -> list[tuple[str, float]]:
    return [(c.document.id, round(c.similarity, 12)) for c in store.keyword_search(query, [ALICE], 5, now=NOW)]


def _hybrid(store, query: str) -> list[tuple[str, float, float | None]]:
    ports = MemoryPorts(store=store, embedder=None, audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    found = retrieve(ports, store, ReadAccess(allowed=(ALICE,)), query, Ranking(top_k=5), vector=unit(1), now=NOW)
    return [(c.document.id, round(c.similarity, 12), c.keyword_score) for c in found]


@pytest.mark.keyword_leg
def test_every_store_scores_keywords_with_the_shared_per_user_scoring(store):
    assert isinstance(store, KeywordSearch)


@pytest.mark.keyword_leg
def test_another_users_documents_change_nothing_in_a_users_keyword_hits(store):
    _alice_world(store)
    queries = ["what was ZK-4471 about", "does Kate paint", "ticket login certificate"]
    before = {q: _keyword(store, q) for q in queries}
    assert all(before.values())
    _bob_floods(store)
    assert {q: _keyword(store, q) for q in queries} == before


def test_another_users_documents_change_nothing_in_a_users_hybrid_hits(store):
    _alice_world(store)
    queries = ["what was ZK-4471 about", "does Kate paint"]
    before = {q: _hybrid(store, q) for q in queries}
    _bob_floods(store)
    assert {q: _hybrid(store, q) for q in queries} == before


@pytest.mark.keyword_leg
def test_the_users_own_documents_do_change_the_statistics(store):
    # The other direction: the statistics are real — alice's own new entries with the word lower its weight
    _alice_world(store)
    before = _keyword(store, "what was ZK-4471 about")
    store.put([(doc(f"ZK-4471 follow-up {i}"), unit(1, 0.3)) for i in range(10)])
    after = {doc_id: score for doc_id, score in _keyword(store, "what was ZK-4471 about")}
    assert any(after.get(doc_id, 0.0) < score for doc_id, score in before)
