"""Revisions and as-of reads (issue 35.3): every change of an entry is an immutable revision with who made it,
listed to its owner; a search ``as_of`` a moment answers what was recalled then; an erasure leaves none."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "which city does alice live in"


def _history(api: Api, world: World) -> tuple[str, list[Any]]:
    """create (t0) → update (t1) → supersede (t2) → delete (t3), an hour apart; the moments between them."""
    moments = []
    doc_id = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "alice lives in the city of Porto"})
    doc_id = doc_id.body["ids"][0]
    for change in ({"content": "alice lives in the city of Lisbon"}, {"status": "superseded"}, None):
        world.clock.advance(minutes=30)
        moments.append(world.clock.now())
        world.clock.advance(minutes=30)
        reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", change) if change else None
        if reply is None:
            assert api.delete(f"/v1/memory/documents/{doc_id}").status == 204
        else:
            assert reply.status == 200, reply.text
    world.clock.advance(minutes=30)
    moments.append(world.clock.now())
    return doc_id, moments


def _as_of(api: Api, moment: Any) -> list[str]:
    reply = api.post("/v1/memory/search", {"query": QUERY, "as_of": moment.isoformat(), "min_score": 0})
    assert reply.status == 200, reply.text
    return [hit["content"] for hit in reply.body["hits"]]


def test_create_update_supersede_delete_are_four_revisions_by_the_user(api: Api, world: World) -> None:
    doc_id, _ = _history(api, world)
    reply = api.get(f"/v1/memory/documents/{doc_id}/revisions")
    assert reply.status == 200
    revisions = reply.body["revisions"]
    assert [r["change"] for r in revisions] == ["create", "update", "supersede", "delete"]
    assert [r["seq"] for r in revisions] == [1, 2, 3, 4]
    assert {(r["by"], r["actor"]) for r in revisions} == {("user", "alice")}
    assert [r["document"]["content"] for r in revisions[:2]] == [
        "alice lives in the city of Porto",
        "alice lives in the city of Lisbon",
    ]
    assert [r["document"]["status"] for r in revisions] == ["active", "active", "superseded", "deleted"]


def test_as_of_answers_the_version_recalled_at_each_moment(api: Api, world: World) -> None:
    _, (after_create, after_update, after_supersede, after_delete) = _history(api, world)
    assert _as_of(api, after_create) == ["alice lives in the city of Porto"]
    assert _as_of(api, after_update) == ["alice lives in the city of Lisbon"]
    assert _as_of(api, after_supersede) == []
    assert _as_of(api, after_delete) == []


def test_as_of_before_the_entry_existed_finds_nothing(api: Api, world: World) -> None:
    before = world.clock.now()
    world.clock.advance(minutes=5)
    api.post("/v1/memory/documents", {"namespace": ALICE, "content": "alice lives in the city of Porto"})
    assert _as_of(api, before) == []


def test_as_of_never_answers_another_users_entries(api: Api, world: World) -> None:
    api.post("/v1/memory/documents", {"namespace": "vector.user.bob.memory", "content": "x"}, user="bob")
    bob = api.post("/v1/memory/documents", {"namespace": "vector.user.bob.memory", "content": QUERY}, user="bob")
    assert bob.status == 201
    world.clock.advance(minutes=5)
    assert _as_of(api, world.clock.now()) == []


def test_another_users_revisions_are_a_404_audited_as_denied(api: Api, world: World) -> None:
    theirs = api.post("/v1/memory/documents", {"namespace": "vector.user.bob.memory", "content": "bob"}, user="bob")
    doc_id = theirs.body["ids"][0]
    assert api.get(f"/v1/memory/documents/{doc_id}/revisions").status == 404
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.detail["id"], denied.detail["reason"]) == (doc_id, "not_found")


def test_the_owner_reading_revisions_is_audited_as_a_read(api: Api, world: World) -> None:
    doc_id, _ = _history(api, world)
    api.get(f"/v1/memory/documents/{doc_id}/revisions")
    reads = [r for r in world.deps.audit.query("alice", action="read").records if r.detail.get("via") == "revisions"]
    assert [(r.detail["id"], r.detail["hits"]) for r in reads] == [(doc_id, 4)]


def test_an_erasure_removes_every_revision_and_counts_them_in_its_receipt(api: Api, world: World) -> None:
    _history(api, world)
    assert world.deps.revisions is not None and len(world.deps.revisions.owned("alice")) == 4
    reply = api.delete("/v1/me")
    assert reply.status == 200, reply.text
    assert reply.body["counts"]["memory_revision"] == 4
    assert world.deps.revisions.owned("alice") == []


def test_an_erasure_leaves_another_users_revisions(api: Api, world: World) -> None:
    api.post("/v1/memory/documents", {"namespace": "vector.user.bob.memory", "content": "bob"}, user="bob")
    assert api.delete("/v1/me").status == 200
    assert world.deps.revisions is not None and len(world.deps.revisions.owned("bob")) == 1


def test_an_entry_written_through_the_store_directly_has_no_history(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "written before revisions were kept")
    reply = api.get(f"/v1/memory/documents/{doc_id}/revisions")
    assert reply.status == 200 and reply.body["revisions"] == []


def test_as_of_with_hybrid_retrieval_asked_recalls_the_version_then(api: Api, world: World) -> None:
    _, (after_create, *_) = _history(api, world)
    body = {"query": QUERY, "as_of": after_create.isoformat(), "min_score": 0, "retrieval": "hybrid"}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    assert [hit["content"] for hit in reply.body["hits"]] == ["alice lives in the city of Porto"]


def test_as_of_in_the_future_is_a_400(api: Api, world: World) -> None:
    moment = world.clock.now().replace(year=world.clock.now().year + 1)
    reply = api.post("/v1/memory/search", {"query": QUERY, "as_of": moment.isoformat()})
    assert reply.status == 400 and reply.body["field"] == "as_of"
