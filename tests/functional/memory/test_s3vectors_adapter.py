"""What the S3 Vectors adapter must do beyond the shared contract: the service's limits (topK ≤ 100, 500 vectors
a put, metadata sizes), its query visibility, its errors, and hybrid retrieval without a keyword leg — on the
in-process stand-in, through a real botocore client."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mneme.errors import InvalidInput, MemoryUnavailable
from mneme_local.s3vectors_stand_in import S3VectorsStandIn
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, ids_of, later, s3vectors_store, unit

ALICE = "vector.user.alice.memory"


def _queries(stand_in: S3VectorsStandIn) -> list[dict[str, Any]]:
    return [body for operation, body in stand_in.requests if operation == "QueryVectors"]


def test_the_filter_goes_inside_the_query_in_enhanced_mode() -> None:
    stand_in = S3VectorsStandIn()
    store = s3vectors_store(stand_in, "mem", 8)
    store.put([(doc("mine"), unit(1)), (doc("bob's", "vector.user.bob.memory"), unit(1))])
    store.search(unit(1), ["vector.user.alice.*"], 5, now=NOW)
    [query] = _queries(stand_in)[-1:]
    assert query["queryMode"] == "ENHANCED" and query["topK"] == 5
    namespace, deleted, superseded, not_expired = query["filter"]["$and"]
    assert namespace == {"nsp": {"$eq": "vector.user.alice."}}
    assert (deleted, superseded) == ({"del": {"$eq": False}}, {"sup": {"$eq": False}})
    assert not_expired["$or"][0] == {"exp": {"$exists": False}}


def test_more_than_a_hundred_results_come_exact_in_rounds_of_at_most_a_hundred() -> None:
    # Given 250 entries and a search for the 180 nearest (topK is at most 100 a query)
    stand_in = S3VectorsStandIn()
    store = s3vectors_store(stand_in, "mem", 8)
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((250, 8)).astype(np.float32)
    entries = [doc(f"entry {i}", doc_id=f"e{i:03d}") for i in range(250)]
    store.put([(e, v.tolist()) for e, v in zip(entries, vectors, strict=True)])
    query = rng.standard_normal(8).astype(np.float32)
    stand_in.requests.clear()
    found = store.search(query.tolist(), [ALICE], 180, now=NOW)
    # Then they are the exact 180 nearest by cosine, in order, asked in queries of topK <= 100
    cosines = (vectors @ query) / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    assert ids_of(found) == [entries[i].id for i in np.argsort(-cosines)[:180]]
    assert [q["topK"] for q in _queries(stand_in)] == [100, 80]


def test_a_put_of_more_than_500_entries_is_split_into_calls_the_service_takes() -> None:
    stand_in = S3VectorsStandIn()
    store = s3vectors_store(stand_in, "mem", 8)
    entries = [doc(f"entry {i}") for i in range(501)]
    assert store.put([(e, unit(1, i / 501)) for i, e in enumerate(entries)]) == [e.id for e in entries]
    sizes = [len(body["vectors"]) for operation, body in stand_in.requests if operation == "PutVectors"]
    assert sizes == [500, 1]


@pytest.fixture
def lagging() -> tuple[S3VectorsStandIn, FixedClock]:
    clock = FixedClock(NOW)
    return S3VectorsStandIn(clock=clock.now, query_lag=60), clock


def test_an_entry_deleted_while_queries_lag_is_never_found_and_k_stays_filled(lagging: Any) -> None:
    # Given three entries the query index shows, then the best one deleted (queries still show it for 60 s)
    stand_in, clock = lagging
    store = s3vectors_store(stand_in, "mem", 8)
    best, second, third = doc("best"), doc("second"), doc("third")
    store.put([(best, unit(1)), (second, unit(1, 0.5)), (third, unit(1, 1))])
    clock.advance(seconds=61)
    store.soft_delete(best.id, ALICE, now=clock.now())
    # Then a search for two returns the next two: the stale hit dropped on the fresh read, its place refilled
    assert ids_of(store.search(unit(1), [ALICE], 2, now=clock.now())) == [second.id, third.id]


def test_without_the_fresh_read_a_lagging_query_returns_the_deleted_entry(lagging: Any) -> None:
    # The other direction: what verify_queries protects against
    stand_in, clock = lagging
    store = s3vectors_store(stand_in, "mem", 8, verify_queries=False)
    best = doc("best")
    store.put([(best, unit(1))])
    clock.advance(seconds=61)
    store.soft_delete(best.id, ALICE, now=clock.now())
    assert ids_of(store.search(unit(1), [ALICE], 2, now=clock.now())) == [best.id]


def test_a_superseded_entry_leaves_the_search(lagging: Any) -> None:
    stand_in, clock = lagging
    store = s3vectors_store(stand_in, "mem", 8)
    old, new = doc("Alice lives in Porto."), doc("Alice lives in Lisbon.")
    store.put([(old, unit(1)), (new, unit(1, 0.1))])
    clock.advance(seconds=61)
    store.set_status(old.id, ALICE, status="superseded", superseded_by=new.id, now=clock.now())
    assert ids_of(store.search(unit(1), [ALICE], 5, now=clock.now())) == [new.id]
    kept = store.get(old.id, ALICE)
    assert kept is not None and kept.superseded_by == new.id


def test_a_write_is_searchable_once_the_query_index_shows_it_and_readable_by_id_at_once(lagging: Any) -> None:
    stand_in, clock = lagging
    store = s3vectors_store(stand_in, "mem", 8)
    entry = doc("Alice prefers tea")
    store.put([(entry, unit(1))])
    assert store.get(entry.id, ALICE) == entry and [d.id for d in store.iter_owned("alice")] == [entry.id]
    assert store.search(unit(1), [ALICE], 5, now=NOW) == []
    clock.advance(seconds=60)
    assert ids_of(store.search(unit(1), [ALICE], 5, now=clock.now())) == [entry.id]


@pytest.mark.parametrize(
    ("status", "code"),
    [(503, "ServiceUnavailableException"), (429, "TooManyRequestsException"), (404, "NotFoundException")],
)
def test_service_errors_are_memory_unavailable(status: int, code: str) -> None:
    stand_in = S3VectorsStandIn()
    store = s3vectors_store(stand_in, "mem", 8)
    stand_in.fail_next(1, status, code)
    with pytest.raises(MemoryUnavailable, match=code):
        store.search(unit(1), [ALICE], 5, now=NOW)
    assert store.search(unit(1), [ALICE], 5, now=NOW) == []  # the next call is answered


def test_a_vector_of_the_wrong_dimension_is_memory_unavailable() -> None:
    store = s3vectors_store(S3VectorsStandIn(), "mem", 8)
    with pytest.raises(MemoryUnavailable, match="ValidationException"):
        store.put([(doc("short"), [1.0, 0.0])])


def test_entries_over_the_metadata_limits_are_refused_before_the_call() -> None:
    stand_in = S3VectorsStandIn()
    store = s3vectors_store(stand_in, "mem", 8)
    with pytest.raises(InvalidInput, match="40960 bytes"):
        store.put([(doc("x" * 41_000), unit(1))])
    with pytest.raises(InvalidInput, match="filterable metadata"):
        store.put([(doc("derived", derived_from=[f"m-{i:040d}" for i in range(60)]), unit(1))])
    assert not [op for op, _ in stand_in.requests if op == "PutVectors"]
    assert store.put([(doc("y" * 30_000), unit(1))])  # under 40 KB in all: stored


def test_listings_page_through_every_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mneme.adapters.s3vectors.lifecycle.MAX_LIST", 3)
    stand_in = S3VectorsStandIn()
    store = s3vectors_store(stand_in, "mem", 8, segments=2)
    entries = [doc(f"entry {i}", at=later(minutes=i)) for i in range(10)]
    store.put([(e, unit(1, i / 10)) for i, e in enumerate(entries)])
    first, cursor = store.list_documents(ALICE, status=None, limit=6, cursor=None)
    rest, end = store.list_documents(ALICE, status=None, limit=6, cursor=cursor)
    assert [d.id for d in first + rest] == [e.id for e in reversed(entries)] and end is None
    lists = [body for op, body in stand_in.requests if op == "ListVectors"]
    assert {body["segmentIndex"] for body in lists} == {0, 1} and any("nextToken" in body for body in lists)


def test_hybrid_retrieval_keeps_the_vector_leg_and_the_filter() -> None:
    from mneme.engine.memory_io.retrieval import retrieve
    from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
    from mneme.memory.access import ReadAccess
    from mneme.models.policy import Retrieval

    store = s3vectors_store(S3VectorsStandIn(), "mem", 8)
    mine = [doc(f"note {i}", at=later(seconds=i)) for i in range(4)]
    bobs = doc("wifi password zebra-4471 for bob", "vector.user.bob.memory")
    store.put([(d, unit(1, i / 10)) for i, d in enumerate(mine)] + [(bobs, unit(1))])
    ports = MemoryPorts(store=store, embedder=None, audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]

    def found(retrieval: Retrieval) -> list[str]:
        ranking = Ranking(top_k=3, retrieval=retrieval)
        access = ReadAccess(allowed=(ALICE,))
        return ids_of(retrieve(ports, store, access, "wifi password", ranking, vector=unit(1), now=NOW))

    # the vector order, bob's entry filtered out, every vector candidate kept (its lowest too), no keyword leg
    assert found("vector") == [d.id for d in mine]
    assert found("hybrid") == [d.id for d in mine]
    assert found("keyword") == []
