"""Every refusal is audited (issue 31.10): naming another user's namespace in the memory inbox, and asking for
(or deleting) another user's entry by id, answer 404 — and leave a ``denied`` record, the same one for an id
that does not exist, so the caller's own audit never tells the two apart."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.support.deps import World

BOB = "vector.user.bob.memory"


def _bobs_entry(api: Api) -> str:
    reply = api.post("/v1/memory/documents", {"namespace": BOB, "content": "bob's secret"}, user="bob")
    return str(reply.body["ids"][0])


def _denied(world: World) -> list[tuple[str | None, dict[str, Any]]]:
    return [(r.namespace, r.detail) for r in world.deps.audit.query("alice", action="denied").records]


def test_listing_another_users_namespace_is_a_404_and_audited(api: Api, world: World) -> None:
    reply = api.get("/v1/memory/documents", query={"namespace": BOB})
    assert reply.status == 404
    assert [(ns, detail["reason"]) for ns, detail in _denied(world)] == [(BOB, "security_filter")]


def test_listing_an_own_namespace_leaves_no_denied_record(api: Api, world: World) -> None:
    assert api.get("/v1/memory/documents", query={"namespace": "vector.user.alice.memory"}).status == 200
    assert _denied(world) == []


def test_another_users_id_and_an_unknown_id_leave_the_same_denied_record(api: Api, world: World) -> None:
    foreign = _bobs_entry(api)
    assert api.get(f"/v1/memory/documents/{foreign}").status == 404
    assert api.get("/v1/memory/documents/no-such-id").status == 404
    records = _denied(world)
    assert sorted(detail["id"] for _, detail in records) == sorted([foreign, "no-such-id"])
    assert all(
        ns is None and {k: v for k, v in d.items() if k != "id"} == {"via": "inbox", "reason": "not_found"}
        for ns, d in records
    )  # nothing tells the foreign id from the unknown one
    assert BOB not in str(records)


def test_deleting_another_users_entry_is_a_404_audited_and_changes_nothing(api: Api, world: World) -> None:
    foreign = _bobs_entry(api)
    assert api.delete(f"/v1/memory/documents/{foreign}").status == 404
    assert [detail["id"] for _, detail in _denied(world)] == [foreign]
    assert not world.memory.documents[foreign].deleted
