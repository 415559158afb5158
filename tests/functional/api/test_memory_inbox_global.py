"""A global entry in the memory inbox read by a user who is not an admin: nothing of another user's memory (the
ids of their entries derived from it) and nothing an admin's delete retracted (a deleted global entry)."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

GLOBAL = "vector.global.howto"


def _derived(world: World, namespace: str, root: str, owner: str) -> str:
    child = world.memory.documents[remember(world, namespace, f"{owner}'s answer", owner=owner)]
    world.memory.documents[child.id] = child.model_copy(update={"derived_from": [root]})
    return child.id


def test_the_cascade_preview_of_a_global_entry_lists_no_other_users_entries(api: Api, world: World) -> None:
    root = remember(world, GLOBAL, "To reset the VPN, restart the client.", owner="")
    bobs = _derived(world, "vector.agent.bob.memory", root, "bob")
    mine = _derived(world, "vector.agent.alice.memory", root, "alice")
    reply = api.get(f"/v1/memory/documents/{root}", query={"derived": "true"})
    assert reply.status == 200 and reply.body["derived"] == [mine]
    admin = api.get(f"/v1/memory/documents/{root}", query={"derived": "true"}, user="root", admin=True)
    assert admin.status == 200 and set(admin.body["derived"]) == {bobs, mine}


def test_a_deleted_global_entry_is_not_listed_to_a_user(api: Api, world: World) -> None:
    gone = remember(world, GLOBAL, "Oops: the root password is hunter2.", owner="")
    world.memory.soft_delete(gone, GLOBAL, now=world.clock.now())
    reply = api.get("/v1/memory/documents", query={"namespace": GLOBAL, "status": "deleted"})
    assert reply.status == 403 and "hunter2" not in reply.text
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.namespace, denied.detail["reason"]) == (GLOBAL, "admin_required")
    admin = api.get("/v1/memory/documents", query={"namespace": GLOBAL, "status": "deleted"}, user="root", admin=True)
    assert admin.status == 200 and [d["id"] for d in admin.body["documents"]] == [gone]


def _namespaces(api: Api, **options: object) -> list[dict[str, object]]:
    reply = api.get("/v1/memory/namespaces", **options)
    assert reply.status == 200, reply.text
    return list(reply.body["namespaces"])


def test_a_global_namespace_an_admin_emptied_is_not_listed_to_a_user(api: Api, world: World) -> None:
    retracted = "vector.global.acquisition-of-initech"
    gone = remember(world, retracted, "We are buying Initech in March.", owner="")
    world.memory.soft_delete(gone, retracted, now=world.clock.now())
    assert retracted not in [n["namespace"] for n in _namespaces(api)]
    admin = _namespaces(api, user="root", admin=True)
    assert {"namespace": retracted, "active": 0, "superseded": 0, "deleted": 1} in admin


def test_a_user_sees_a_global_namespaces_live_entries_counted_without_the_deleted(api: Api, world: World) -> None:
    kept = remember(world, GLOBAL, "To reset the VPN, restart the client.", owner="")
    gone = remember(world, GLOBAL, "Oops: the root password is hunter2.", owner="")
    world.memory.soft_delete(gone, GLOBAL, now=world.clock.now())
    assert kept
    assert {"namespace": GLOBAL, "active": 1, "superseded": 0, "deleted": 0} in _namespaces(api)
    admin = _namespaces(api, user="root", admin=True)
    assert {"namespace": GLOBAL, "active": 1, "superseded": 0, "deleted": 1} in admin
