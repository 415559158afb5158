"""A synchronous memory write (``POST /v1/memory/documents``, ``:batch``) racing its user's erasure: nothing it
stored survives the erasure's receipt, and the write says so (409 ``erasure_in_progress``), never a 201."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.privacy.support import erasure_during_embedding
from tests.support.deps import World

NOTE = {"namespace": "vector.user.alice.notes", "content": "my secret"}


def test_a_write_whose_users_erasure_finishes_while_it_is_embedded_keeps_nothing(api: Api, world: World) -> None:
    # When alice's erasure runs to its verified receipt while her write is being embedded
    erasure_during_embedding(api, world)
    reply = api.post("/v1/memory/documents", NOTE)
    # Then the write is refused and nothing of it is stored or audited after the receipt
    assert (reply.status, reply.body["error"]) == (409, "erasure_in_progress")
    assert api.get("/v1/me/erasure").body["verified"] is True
    assert world.memory.documents == {}
    assert world.deps.audit.query("alice", action="write").records == []


def test_a_batch_whose_users_erasure_finishes_while_it_is_embedded_keeps_nothing(api: Api, world: World) -> None:
    erasure_during_embedding(api, world)
    reply = api.post("/v1/memory/documents:batch", {"items": [NOTE, {**NOTE, "content": "another secret"}]})
    assert (reply.status, reply.body["error"]) == (409, "erasure_in_progress")
    assert world.memory.documents == {}


def test_a_write_while_the_users_erasure_runs_is_refused_and_accepted_once_it_is_done(api: Api, world: World) -> None:
    # Given alice's erasure accepted and still running (the privacy worker holds it)
    world.privacy_jobs.hold = True
    assert api.delete("/v1/me", user="alice").status == 202
    # Then her write is refused with nothing stored, while bob writes as ever
    reply = api.post("/v1/memory/documents", NOTE)
    assert (reply.status, reply.body["error"]) == (409, "erasure_in_progress")
    assert world.memory.documents == {}
    bobs = {"namespace": "vector.user.bob.notes", "content": "bob's note"}
    assert api.post("/v1/memory/documents", bobs, user="bob").status == 201
    # And once her erasure is done (and the clock moved on), a new write of hers is stored
    world.privacy_jobs.drain()
    world.clock.advance(seconds=1)
    assert api.post("/v1/memory/documents", NOTE).status == 201
    assert len(world.memory.documents) == 2
