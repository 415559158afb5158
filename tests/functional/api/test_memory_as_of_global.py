"""A user's as-of search reads global memory only as it is now: a global entry is everyone's to read, not its
history (its revisions and its deleted entries are the admins'), so what an admin retracted or corrected since
the moment is never recalled to a user who is not an admin. An admin's as-of search recalls it as it was."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.support.deps import World

GLOBAL = "vector.global.howto"
QUERY = "what is the staging database password"
LEAKED = "The staging database password is hunter2."
CORRECTED = "The staging database password is kept in the vault."


def _global_entry(api: Api, world: World) -> tuple[str, Any]:
    """A global entry an admin wrote, and a moment after it."""
    reply = api.post("/v1/memory/documents", {"namespace": GLOBAL, "content": LEAKED}, user="root", admin=True)
    assert reply.status == 201, reply.text
    world.clock.advance(minutes=10)
    moment = world.clock.now()
    world.clock.advance(minutes=10)
    return str(reply.body["ids"][0]), moment


def _search(api: Api, moment: Any, *, admin: bool = False) -> Any:
    body = {"query": QUERY, "min_score": 0, "explain": True, "as_of": moment.isoformat()}
    reply = api.post("/v1/memory/search", body, user="root" if admin else "alice", admin=admin)
    assert reply.status == 200, reply.text
    return reply


def _listed(reply: Any) -> set[str]:
    explanation = reply.body["explanation"]
    return {hit["id"] for hit in reply.body["hits"]} | {
        entry["id"] for entry in [*explanation["hits"], *explanation["dropped"]]
    }


def test_a_global_entry_an_admin_deleted_is_not_recalled_to_a_user_as_of_before_the_delete(
    api: Api, world: World
) -> None:
    gone, moment = _global_entry(api, world)
    assert api.delete(f"/v1/memory/documents/{gone}", user="root", admin=True).status == 204
    reply = _search(api, moment)
    assert gone not in _listed(reply) and "hunter2" not in reply.text


def test_a_global_entry_an_admin_corrected_is_not_recalled_to_a_user_with_its_old_content(
    api: Api, world: World
) -> None:
    edited, moment = _global_entry(api, world)
    patched = api.call("PATCH", f"/v1/memory/documents/{edited}", {"content": CORRECTED}, user="root", admin=True)
    assert patched.status == 200, patched.text
    reply = _search(api, moment)
    assert "hunter2" not in reply.text


def test_an_admin_as_of_search_recalls_the_global_entry_as_it_was(api: Api, world: World) -> None:
    gone, moment = _global_entry(api, world)
    assert api.delete(f"/v1/memory/documents/{gone}", user="root", admin=True).status == 204
    reply = _search(api, moment, admin=True)
    assert [hit["id"] for hit in reply.body["hits"]] == [gone] and reply.body["hits"][0]["content"] == LEAKED


def test_a_global_entry_unchanged_since_is_recalled_to_a_user_as_of_then(api: Api, world: World) -> None:
    kept, moment = _global_entry(api, world)
    again = api.post("/v1/memory/documents", {"namespace": GLOBAL, "content": LEAKED}, user="root", admin=True)
    assert again.status == 201 and again.body["ids"] == [kept]  # refreshed: the same entry, nothing changed
    reply = _search(api, moment)
    assert [hit["id"] for hit in reply.body["hits"]] == [kept] and reply.body["hits"][0]["content"] == LEAKED
