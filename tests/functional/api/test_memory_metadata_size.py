"""A memory's metadata has a size bound: half a megabyte of it stored the entry, then failed its revision (an
item over 400 KB) — a 413 for a write that was made and never audited. Now it is refused before anything."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"


def test_metadata_over_the_bound_is_a_400_that_stores_and_audits_nothing(api: Api, world: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "m", "metadata": {"k": "v" * 500_000}})
    assert (reply.status, reply.body["field"]) == (400, "metadata"), reply.text
    assert world.memory.documents == {}
    assert world.deps.audit.query("alice", action="write").records == []


def test_a_batch_item_with_such_metadata_is_refused_alone(api: Api, world: World) -> None:
    items = [
        {"namespace": ALICE, "content": "big", "metadata": {"k": "v" * 20_000}},
        {"namespace": ALICE, "content": "ok"},
    ]
    results = api.post("/v1/memory/documents:batch", {"items": items}).body["results"]
    assert [(r["index"], r["status"]) for r in results] == [(0, 400), (1, 201)]
    assert [d.content for d in world.memory.documents.values()] == ["ok"]


def test_metadata_under_the_bound_is_stored(api: Api, world: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "m", "metadata": {"k": "v" * 10_000}})
    assert reply.status == 201, reply.text
