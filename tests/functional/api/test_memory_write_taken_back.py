"""A memory write whose audit record (or revision) cannot be written is taken back: the caller's 503 means nothing
was stored, so no entry is ever recalled that the audit does not say someone wrote, and a retry stores it once
(SPEC §9: who wrote which memory namespace and when)."""

from __future__ import annotations

from typing import Any

from mneme.engine.memory_io.revisions import RevisionedMemoryStore
from mneme.errors import AuditWriteFailed, StoreUnavailable
from tests.functional.api.conftest import Api
from tests.reliability.faults import FlakyAudit
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
PORTO = {"namespace": ALICE, "content": "Alice lives in Porto"}


def _audit_down(world: World) -> FlakyAudit:
    flaky = FlakyAudit(world.deps.audit, lambda: AuditWriteFailed("the audit table is unavailable"))
    object.__setattr__(world.deps, "audit", flaky)
    return flaky


class _RevisionsDown:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def append(self, revisions: Any) -> None:
        raise StoreUnavailable("the revisions table is unavailable")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _listed(api: Api) -> list[str]:
    return [doc["content"] for doc in api.get("/v1/memory/documents", query={"namespace": ALICE}).body["documents"]]


def _writes(world: World) -> int:
    return len(world.deps.audit.query("alice", action="write").records)


def test_a_write_whose_audit_record_cannot_be_written_is_a_503_and_stores_nothing(api: Api, world: World) -> None:
    _audit_down(world)
    reply = api.post("/v1/memory/documents", PORTO)
    assert (reply.status, reply.body["error"]) == (503, "audit_unavailable")
    assert _listed(api) == []
    assert api.post("/v1/memory/search", {"query": "Where does Alice live?"}).body["hits"] == []
    assert world.deps.revisions is not None and world.deps.revisions.owned("alice") == []


def test_the_write_retried_once_the_audit_is_back_is_stored_once_with_its_record(api: Api, world: World) -> None:
    _audit_down(world)
    assert api.post("/v1/memory/documents", PORTO).status == 503
    reply = api.post("/v1/memory/documents", PORTO)
    assert reply.status == 201 and "refreshed" not in reply.body
    assert _listed(api) == ["Alice lives in Porto"]
    assert _writes(world) == 1


def test_an_entry_already_stored_stays_when_writing_it_again_cannot_be_audited(api: Api, world: World) -> None:
    first = api.post("/v1/memory/documents", PORTO).body["ids"]
    _audit_down(world)
    assert api.post("/v1/memory/documents", PORTO).status == 503
    assert _listed(api) == ["Alice lives in Porto"]
    assert api.get(f"/v1/memory/documents/{first[0]}").status == 200


def test_a_long_write_that_cannot_be_audited_leaves_none_of_its_chunks(api: Api, world: World) -> None:
    _audit_down(world)
    long = {"namespace": ALICE, "content": " ".join(f"Alice noted fact number {n}." for n in range(2_000))}
    assert api.post("/v1/memory/documents", long).status == 503
    assert world.memory.entries([doc.id for doc in world.memory.iter_owned("alice")]) == []


def test_a_batch_whose_audit_records_cannot_be_written_stores_none_of_its_items(api: Api, world: World) -> None:
    _audit_down(world)
    items = [{"namespace": ALICE, "content": f"Alice visited city number {n}"} for n in range(3)]
    reply = api.post("/v1/memory/documents:batch", {"items": items})
    assert (reply.status, reply.body["error"]) == (503, "audit_unavailable")
    assert _listed(api) == []


def test_a_write_whose_revision_cannot_be_kept_is_a_503_and_stores_nothing(api: Api, world: World) -> None:
    store = world.deps.memory
    assert isinstance(store, RevisionedMemoryStore)
    object.__setattr__(store, "revisions", _RevisionsDown(store.revisions))
    reply = api.post("/v1/memory/documents", PORTO)
    assert reply.status == 503
    assert _listed(api) == [] and _writes(world) == 0


def test_a_correction_whose_audit_record_cannot_be_written_is_a_503_and_changes_nothing(api: Api, world: World) -> None:
    doc_id = api.post("/v1/memory/documents", PORTO).body["ids"][0]
    _audit_down(world)
    reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"content": "Alice lives in Lisbon"})
    assert (reply.status, reply.body["error"]) == (503, "audit_unavailable")
    assert _listed(api) == ["Alice lives in Porto"]
    assert world.deps.revisions is not None
    assert [r.change for r in world.deps.revisions.history("alice", doc_id)] == ["create"]


def test_the_correction_retried_once_the_audit_is_back_is_recorded_as_an_update(api: Api, world: World) -> None:
    doc_id = api.post("/v1/memory/documents", PORTO).body["ids"][0]
    _audit_down(world)
    path = f"/v1/memory/documents/{doc_id}"
    assert api.call("PATCH", path, {"content": "Alice lives in Lisbon"}).status == 503
    assert api.call("PATCH", path, {"content": "Alice lives in Lisbon"}).status == 200
    assert len(world.deps.audit.query("alice", action="update").records) == 1


def test_a_delete_whose_audit_record_cannot_be_written_is_a_503_and_deletes_nothing(api: Api, world: World) -> None:
    doc_id = api.post("/v1/memory/documents", PORTO).body["ids"][0]
    _audit_down(world)
    assert api.delete(f"/v1/memory/documents/{doc_id}").status == 503
    assert api.get(f"/v1/memory/documents/{doc_id}").status == 200
    assert api.delete(f"/v1/memory/documents/{doc_id}").status == 204
    assert len(world.deps.audit.query("alice", action="delete").records) == 1
