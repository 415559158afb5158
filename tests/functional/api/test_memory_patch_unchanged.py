"""A memory PATCH that changes nothing — the status, content or tags the entry already has, on an entry the user
already vouched for — answers the entry as it is: no write, so neither ``updated_at`` nor the ETag moves and no
revision is added, and its audit record is the read it was (``unchanged`` names what it asked), not an update.
Before, it rewrote the entry and was audited ``update`` with ``changed: [...]``."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api, Reply
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

ALICE = "vector.user.alice.memory"


def _patch(api: Api, doc_id: str, body: dict[str, Any]) -> Reply:
    reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", body)
    assert reply.status == 200, reply.text
    return reply


def _updates(world: World) -> list[Any]:
    return [record.detail for record in world.deps.audit.query("alice", action="update").records]


def test_superseding_an_entry_already_superseded_writes_nothing(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    first = _patch(api, doc_id, {"status": "superseded"})
    world.clock.advance(minutes=5)
    again = _patch(api, doc_id, {"status": "superseded"})
    assert again.headers["etag"] == first.headers["etag"]
    assert again.body["updated_at"] == first.body["updated_at"] and again.body["status"] == "superseded"
    assert _updates(world) == [{"via": "inbox", "id": doc_id, "changed": ["status"]}]


def test_the_same_content_and_tags_again_add_no_revision(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    body = {"content": "Alice lives in Lisbon", "tags": ["home"]}
    first = _patch(api, doc_id, body)
    world.clock.advance(minutes=5)
    again = _patch(api, doc_id, body)
    assert (again.headers["etag"], again.body["updated_at"]) == (first.headers["etag"], first.body["updated_at"])
    revisions = api.get(f"/v1/memory/documents/{doc_id}/revisions").body["revisions"]
    assert [revision["change"] for revision in revisions] == ["update"]


def test_a_patch_that_changes_nothing_is_audited_as_a_read_saying_so(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    _patch(api, doc_id, {"tags": ["home"]})
    _patch(api, doc_id, {"tags": ["home"], "status": "active"})
    assert len(_updates(world)) == 1
    (read,) = [r for r in world.deps.audit.query("alice", action="read").records if r.detail.get("id") == doc_id]
    assert read.namespace == ALICE and read.detail["unchanged"] == ["tags", "status"]
    assert "changed" not in read.detail


def test_confirming_an_entry_the_user_had_not_vouched_for_still_writes(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")  # as a model would store it: no authority yet
    reply = _patch(api, doc_id, {"status": "active"})
    assert reply.body["authority"] == "user_directed"
    assert _updates(world) == [{"via": "inbox", "id": doc_id, "changed": ["status"]}]
