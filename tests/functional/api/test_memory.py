"""Memory over HTTP (SPEC §5, §10): search, write and soft-delete; RLS; degraded mode 503."""

from __future__ import annotations

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.functional.api.conftest import Api
from tests.support.deps import World, make_world
from tests.support.shapes import AUDIT_KEYS, HIT_KEYS


def _write(api: Api, namespace: str, content: str, **options: object) -> str:
    reply = api.post("/v1/memory/documents", {"namespace": namespace, "content": content}, **options)
    assert reply.status == 201, reply.text
    return str(reply.body["ids"][0])


def test_writing_a_document_answers_201_with_its_ids(api: Api, world: World) -> None:
    # When alice writes into her own namespace
    reply = api.post(
        "/v1/memory/documents",
        {"namespace": "vector.user.alice.memory", "content": "alice likes green tea", "tags": ["drinks"]},
    )
    # Then 201 {ids}, the entry is stored and the write audited
    assert reply.status == 201
    (doc_id,) = reply.body["ids"]
    stored = world.memory.documents[doc_id]
    assert (stored.namespace, stored.content, stored.tags) == (
        "vector.user.alice.memory",
        "alice likes green tea",
        ["drinks"],
    )
    writes = world.deps.audit.query("alice", action="write").records
    assert [r.namespace for r in writes] == ["vector.user.alice.memory"]


def test_search_finds_the_callers_own_entries_with_the_hit_shape(api: Api) -> None:
    # Given an entry of alice
    doc_id = _write(api, "vector.user.alice.memory", "alice likes green tea")
    # When she searches without namespaces
    reply = api.post("/v1/memory/search", {"query": "alice likes green tea"})
    # Then the hit has the fields of SPEC §10 and the namespaces searched are hers plus global
    assert reply.status == 200
    (hit,) = reply.body["hits"]
    assert set(hit) >= HIT_KEYS
    assert (hit["id"], hit["namespace"], hit["content"]) == (
        doc_id,
        "vector.user.alice.memory",
        "alice likes green tea",
    )
    assert sorted(reply.body["namespaces"]) == ["vector.agent.alice.*", "vector.global.*", "vector.user.alice.*"]


def test_a_search_is_audited_as_a_read(api: Api, world: World) -> None:
    _write(api, "vector.user.alice.memory", "alice likes green tea")
    api.post("/v1/memory/search", {"query": "green tea", "top_k": 3})
    reads = world.deps.audit.query("alice", action="read").records
    assert reads
    assert all(r.detail.get("top_k") == 3 for r in reads)


def test_search_never_returns_another_users_entries(api: Api) -> None:
    _write(api, "vector.user.bob.memory", "bob's secret plan", user="bob")
    reply = api.post("/v1/memory/search", {"query": "bob's secret plan"})
    assert reply.body["hits"] == []


def test_asking_for_another_users_namespace_is_dropped_and_audited(api: Api, world: World) -> None:
    # Given bob's entry
    _write(api, "vector.user.bob.memory", "bob's secret plan", user="bob")
    # When alice names bob's namespace
    reply = api.post("/v1/memory/search", {"query": "bob's secret plan", "namespaces": ["vector.user.bob.*"]})
    # Then nothing is found and the denial is audited under alice
    assert reply.status == 200
    assert (reply.body["hits"], reply.body["namespaces"]) == ([], [])
    denied = world.deps.audit.query("alice", action="denied").records
    assert [r.namespace for r in denied] == ["vector.user.bob.*"]


def test_global_entries_are_readable_by_everyone(api: Api) -> None:
    _write(api, "vector.global.howto", "how to reset a password", user="root", admin=True)
    reply = api.post("/v1/memory/search", {"query": "how to reset a password"}, user="bob")
    assert [h["namespace"] for h in reply.body["hits"]] == ["vector.global.howto"]


def test_a_non_admin_writing_global_memory_is_403_and_audited(api: Api, world: World) -> None:
    # When alice (no admin group) writes into vector.global
    reply = api.post("/v1/memory/documents", {"namespace": "vector.global.howto", "content": "fake news"})
    # Then 403, nothing stored, and a denied record
    assert (reply.status, reply.body["error"]) == (403, "forbidden")
    assert world.memory.documents == {}
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert denied.namespace == "vector.global.howto"
    assert set(denied.model_dump()) >= AUDIT_KEYS


def test_writing_into_another_users_namespace_is_403(api: Api, world: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": "vector.user.bob.memory", "content": "x"})
    assert reply.status == 403
    assert world.memory.documents == {}


def test_an_invalid_namespace_is_400(api: Api) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": "vector.user.alice.*", "content": "x"})
    assert (reply.status, reply.body["field"]) == (400, "namespace")


def test_deleting_a_document_soft_deletes_it(api: Api, world: World) -> None:
    # Given alice's entry
    doc_id = _write(api, "vector.user.alice.memory", "alice likes green tea")
    # When she deletes it
    reply = api.delete(f"/v1/memory/documents/{doc_id}")
    # Then 204, the entry is marked deleted (kept), no longer found, and the delete audited
    assert reply.status == 204
    assert world.memory.documents[doc_id].deleted
    assert api.post("/v1/memory/search", {"query": "alice likes green tea"}).body["hits"] == []
    deletes = world.deps.audit.query("alice", action="delete").records
    assert [r.detail.get("id") for r in deletes] == [doc_id]


def test_deleting_another_users_document_is_404(api: Api, world: World) -> None:
    doc_id = _write(api, "vector.user.bob.memory", "bob's secret plan", user="bob")
    reply = api.delete(f"/v1/memory/documents/{doc_id}")
    assert reply.status == 404
    assert not world.memory.documents[doc_id].deleted


def test_deleting_an_unknown_document_is_404(api: Api) -> None:
    assert api.delete("/v1/memory/documents/nope").status == 404


@pytest.fixture
def no_memory() -> Api:
    return Api(make_world(OfflineModel(), memory=False))


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/memory/search", {"query": "tea"}),
        ("POST", "/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": "tea"}),
        ("DELETE", "/v1/memory/documents/doc-1", None),
    ],
)
def test_memory_routes_answer_503_when_memory_is_not_configured(
    no_memory: Api, method: str, path: str, body: object
) -> None:
    reply = no_memory.call(method, path, body)
    assert reply.status == 503
    assert reply.body["error"] == "memory_unavailable"
    assert "retry-after" in reply.headers


def test_a_store_outage_is_503(api: Api, world: World) -> None:
    world.memory.unavailable = True
    reply = api.post("/v1/memory/search", {"query": "tea"})
    assert (reply.status, reply.body["error"]) == (503, "memory_unavailable")
