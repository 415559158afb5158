"""A page cursor of ``GET /v1/memory/documents`` belongs to its listing (the namespace and status it paged):
passed to another listing — another namespace, another user's own namespace, another status — it is a 400 naming
``cursor``, as another user's chat cursor is. Before, it was read as a position in the other listing and
answered a silently wrong page (often empty, with no cursor: "nothing more")."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.support.deps import World

NOTES, WORK = "vector.user.alice.notes", "vector.user.alice.work"


def _page(api: Api, namespace: str, cursor: str | None = None, user: str = "alice", **query: str) -> Any:
    asked = {"namespace": namespace, "limit": "2", **query, **({"cursor": cursor} if cursor else {})}
    return api.get("/v1/memory/documents", query=asked, user=user)


def _written(api: Api, world: World, namespace: str, count: int, user: str = "alice") -> list[str]:
    ids = []
    for n in range(count):
        world.clock.advance(seconds=1)
        reply = api.post(
            "/v1/memory/documents", {"namespace": namespace, "content": f"entry {n} of {namespace}"}, user=user
        )
        assert reply.status == 201, reply.text
        ids.append(reply.body["ids"][0])
    return ids


def test_a_cursor_pages_its_own_listing_to_the_end(api: Api, world: World) -> None:
    ids = _written(api, world, NOTES, 5)
    seen, cursor = [], None
    for _ in range(5):
        body = _page(api, NOTES, cursor).body
        seen += [doc["id"] for doc in body["documents"]]
        if not (cursor := body["cursor"]):
            break
    assert seen == ids[::-1]


def test_a_cursor_of_another_namespace_is_a_400(api: Api, world: World) -> None:
    _written(api, world, NOTES, 3)
    _written(api, world, WORK, 3)
    cursor = _page(api, NOTES).body["cursor"]
    reply = _page(api, WORK, cursor)
    assert (reply.status, reply.body["field"]) == (400, "cursor"), reply.text


def test_another_users_cursor_is_a_400_on_the_callers_own_namespace(api: Api, world: World) -> None:
    _written(api, world, NOTES, 3)
    _written(api, world, "vector.user.bob.notes", 3, user="bob")
    cursor = _page(api, NOTES).body["cursor"]
    reply = _page(api, "vector.user.bob.notes", cursor, user="bob")
    assert (reply.status, reply.body["field"]) == (400, "cursor"), reply.text


def test_a_cursor_of_another_status_is_a_400(api: Api, world: World) -> None:
    _written(api, world, NOTES, 3)
    cursor = _page(api, NOTES).body["cursor"]
    reply = _page(api, NOTES, cursor, status="deleted")
    assert (reply.status, reply.body["field"]) == (400, "cursor"), reply.text
