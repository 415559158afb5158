"""Explain recall (issue 35.1) over real stores: for each reason an entry is not recalled, a world where exactly
that reason applies to one entry, and the explanation naming it — over the embedded store, the OpenSearch
adapter (osmem-server, k-NN emulated) and the in-memory fake.

The query's vector is ``unit(1)``; each entry's vector is chosen so its cosine (its similarity in the vector
mode) is exact, recency is off (decay 0), so each rule's threshold is crossed by design, not by accident.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from mneme.engine.memory_io.explain import explain_search
from mneme.engine.memory_io.ops import MemoryPorts, Ranking
from mneme.memory.access import Denial, ReadAccess
from tests.functional.memory.conftest import NOW, doc, make_store, unit

MEMORY = "vector.user.alice.memory"
NOTES = "vector.user.alice.notes"
QUERY = "where does alice live"


class _Embedder:
    """Texts → the vectors the test chose (the query's is unit(1)); unknown text is orthogonal."""

    model_id = "hashing"

    def __init__(self) -> None:
        self.vectors: dict[str, list[float]] = {QUERY: unit(1)}
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self.vectors.get(text, unit(0, 0, 0, 0, 0, 0, 0, 1)) for text in texts]


class _Clock:
    def now(self) -> Any:
        return NOW


class _Audit:
    def append(self, records: Any) -> None:
        pass


def _records(*_: Any, **__: Any) -> list[Any]:
    return []


@pytest.fixture(params=["embedded", "opensearch-es", "fake"])
def world(request: pytest.FixtureRequest, tmp_path: Any, index_name: str) -> tuple[Any, _Embedder]:
    client = request.getfixturevalue("os_client") if request.param.startswith("opensearch") else None
    store = make_store(request.param, tmp_path, client, index_name, 8)
    return store, _Embedder()


def _put(world: Any, content: str, cosine: float, namespace: str = MEMORY, **fields: Any) -> str:
    store, embedder = world
    vector = unit(cosine, (1 - cosine * cosine) ** 0.5)
    embedder.vectors[content] = vector
    entry = doc(content, namespace, **fields)
    (stored,) = store.put([(entry, vector)])
    return str(stored)


def _explain(world: Any, access: ReadAccess | None = None, **ranking: Any) -> Any:
    store, embedder = world
    ports = MemoryPorts(store=store, embedder=embedder, audit=_Audit(), clock=_Clock(), recency_decay=0.0)  # type: ignore[arg-type]
    options = {"top_k": 5, "min_score": 0.0, "relative_cutoff": 0.0, "retrieval": "vector", **ranking}
    return explain_search(
        ports,
        _records,
        access or ReadAccess(allowed=(MEMORY,)),
        QUERY,
        Ranking(**options),
        user_id="alice",
        via="test",
        granted_by="request.namespaces",
    )


def _reasons(explained: Any) -> dict[str, str]:
    return {entry["id"]: entry["reason"] for entry in explained.dropped}


def _hit_ids(explained: Any) -> list[str]:
    return [hit["id"] for hit in explained.hits]


def test_an_entry_outside_the_searched_namespaces_is_not_granted_by_the_request(world) -> None:
    home = _put(world, "alice lives in Lyon", 0.9)
    other = _put(world, "alice lives in Lyon, says her notebook", 0.95, NOTES)
    explained = _explain(world)
    assert _hit_ids(explained) == [home]
    (dropped,) = explained.dropped
    assert (dropped["id"], dropped["reason"], dropped["rule"]) == (other, "namespace_not_granted", "request.namespaces")


def test_a_denied_namespace_names_the_security_filter_rule(world) -> None:
    other = _put(world, "alice lives in Lyon, says her notebook", 0.95, NOTES)
    access = ReadAccess(allowed=(MEMORY,), denied=(Denial(NOTES, "not_granted"),))
    (dropped,) = _explain(world, access).dropped
    assert (dropped["id"], dropped["rule"]) == (other, "security_filter:not_granted")


def test_a_deleted_entry_is_explained_as_deleted(world) -> None:
    store, _ = world
    kept = _put(world, "alice lives in Lyon", 0.9)
    gone = _put(world, "alice lives in Paris", 0.95)
    store.soft_delete(gone, MEMORY, now=NOW)
    explained = _explain(world)
    assert _hit_ids(explained) == [kept] and _reasons(explained) == {gone: "deleted"}


def test_a_superseded_entry_is_explained_with_what_superseded_it(world) -> None:
    store, _ = world
    old = _put(world, "alice lives in Paris", 0.95)
    new = _put(world, "alice lives in Lyon", 0.9)
    store.set_status(old, MEMORY, status="superseded", superseded_by=new, now=NOW)
    explained = _explain(world)
    assert _hit_ids(explained) == [new]
    (dropped,) = explained.dropped
    assert (dropped["reason"], dropped["superseded_by"]) == ("superseded", new)


def test_an_expired_entry_is_explained_as_expired(world) -> None:
    kept = _put(world, "alice lives in Lyon", 0.9)
    stale = _put(world, "alice lives in Paris", 0.95, expires_at=NOW - timedelta(hours=1))
    explained = _explain(world)
    assert _hit_ids(explained) == [kept] and _reasons(explained) == {stale: "expired"}


def test_an_entry_under_the_floor_is_below_the_floor_with_its_scores(world) -> None:
    kept = _put(world, "alice lives in Lyon", 0.9)
    weak = _put(world, "alice once visited Nice", 0.3)
    explained = _explain(world, min_score=0.5)
    assert _hit_ids(explained) == [kept] and _reasons(explained) == {weak: "below_floor"}
    (dropped,) = explained.dropped
    assert dropped["scores"]["relevance"] == pytest.approx(0.3, abs=1e-3)
    assert dropped["scores"]["vector"] == pytest.approx(0.3, abs=1e-3)


def test_an_entry_above_the_floor_is_not_below_it(world) -> None:
    _put(world, "alice lives in Lyon", 0.9)
    fair = _put(world, "alice once visited Nice", 0.6)
    explained = _explain(world, min_score=0.5)
    assert fair in _hit_ids(explained) and explained.dropped == []


def test_an_entry_far_behind_the_best_is_cut_by_the_relative_cutoff(world) -> None:
    kept = _put(world, "alice lives in Lyon", 1.0)
    behind = _put(world, "alice once visited Nice", 0.6)
    explained = _explain(world, relative_cutoff=0.8)
    assert _hit_ids(explained) == [kept] and _reasons(explained) == {behind: "relative_cutoff"}


def test_the_same_content_twice_is_a_duplicate_of_the_kept_hit(world) -> None:
    first = _put(world, "alice lives in Lyon", 0.9)
    second = _put(world, "alice lives in Lyon", 0.9, NOTES)
    explained = _explain(world, ReadAccess(allowed=(MEMORY, NOTES)))
    ((kept,), (dropped,)) = explained.hits, explained.dropped
    assert {kept["id"], dropped["id"]} == {first, second}
    assert (dropped["reason"], dropped["duplicate_of"]) == ("duplicate", kept["id"])


def test_an_entry_after_the_first_top_k_is_beyond_top_k(world) -> None:
    best = _put(world, "alice lives in Lyon", 0.9)
    second = _put(world, "alice once visited Nice", 0.8)
    explained = _explain(world, top_k=1)
    assert _hit_ids(explained) == [best] and _reasons(explained) == {second: "top_k"}


def test_a_hit_shows_its_score_parts(world) -> None:
    _put(world, "alice lives in Lyon", 0.9)
    (hit,) = _explain(world).hits
    scores = hit["scores"]
    assert scores["similarity"] == pytest.approx(0.9, abs=1e-3) and scores["relevance"] == pytest.approx(0.9, abs=1e-3)
    assert (scores["rule_bonus"], scores["recency"], scores["fusion"]) == (0, 0, "vector")


def test_another_users_entries_are_never_part_of_an_explanation(world) -> None:
    _put(world, "alice lives in Lyon", 0.9)
    bob = _put(world, "alice lives in Lyon, says bob", 0.99, "vector.user.bob.memory")
    explained = _explain(world)
    shown = {entry["id"] for entry in [*explained.hits, *explained.dropped]}
    assert bob not in shown


def test_what_the_filter_kept_out_is_listed_closest_first_up_to_the_search_depth(world) -> None:
    store, _ = world
    _put(world, "alice lives in Lyon", 0.9)
    for i in range(6):
        store.soft_delete(_put(world, f"alice once lived in town {i}", 0.1 * i), MEMORY, now=NOW)
    explained = _explain(world, top_k=1)  # the vector mode's depth: 4 × top_k
    shown = [entry["scores"]["vector"] for entry in explained.dropped]
    assert len(shown) == 4 and shown == sorted(shown, reverse=True) and shown[0] == pytest.approx(0.5, abs=1e-3)


def test_a_live_entry_beyond_the_search_depth_was_not_retrieved(world) -> None:
    ids = [_put(world, f"alice lived in town number {i}", 0.9 - 0.1 * i) for i in range(5)]
    explained = _explain(world, top_k=1)  # the vector leg fetches 4 × top_k = 4 candidates
    reasons = _reasons(explained)
    assert _hit_ids(explained) == [ids[0]]
    assert [reasons[i] for i in ids[1:]] == ["top_k", "top_k", "top_k", "not_retrieved"]
