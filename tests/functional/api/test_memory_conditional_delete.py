"""``DELETE /v1/memory/documents/{id}`` honours ``If-Match`` and ``If-None-Match`` as the entry's PATCH does and
the configuration's deletes do (RFC 9110 §13): an entry corrected since the caller read it is a 412, not deleted."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

ALICE = "vector.user.alice.memory"


def _corrected_after_reading(api: Api, world: World) -> tuple[str, str, str]:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    path = f"/v1/memory/documents/{doc_id}"
    seen = api.get(path).headers["etag"]
    world.clock.advance(minutes=1)
    assert api.call("PATCH", path, {"content": "Alice lives in Lisbon"}).status == 200
    return doc_id, path, seen


def test_an_entry_corrected_since_it_was_read_is_not_deleted(api: Api, world: World) -> None:
    _doc_id, path, seen = _corrected_after_reading(api, world)
    reply = api.delete(path, headers={"if-match": seen})
    assert reply.status == 412 and reply.headers["etag"] == api.get(path).headers["etag"]
    assert api.get(path).body["content"] == "Alice lives in Lisbon"
    assert world.deps.audit.query("alice", action="delete").records == []


def test_an_entry_deleted_with_the_tag_it_was_read_with_is_deleted(api: Api, world: World) -> None:
    _doc_id, path, _ = _corrected_after_reading(api, world)
    now = api.get(path).headers["etag"]
    assert api.delete(path, headers={"if-match": now}).status == 204
    assert api.get(path).status == 404


def test_if_none_match_star_on_an_entry_that_exists_is_a_412(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    path = f"/v1/memory/documents/{doc_id}"
    assert api.delete(path, headers={"if-none-match": "*"}).status == 412
    assert api.get(path).status == 200
