"""The OpenSearch adapter on a real osmem-server (mapping, bulk, deletes) and its k-NN request/response."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.credentials import Credentials
from opensearchpy import OpenSearch

from mneme.adapters.opensearch.http import SignedOpenSearch
from mneme.adapters.opensearch.queries import index_body, knn_query, parse_hits, score_to_similarity
from mneme.adapters.opensearch.store import OpenSearchMemoryStore, opensearch_client
from mneme.errors import MemoryUnavailable
from tests.functional.memory.conftest import NOW, doc, faiss_ip_score, later, unit


class BulkSpy:
    """Wraps mneme's client: records every bulk body and keyword arguments, and any refresh call."""

    def __init__(self, client: SignedOpenSearch) -> None:
        self.client = client
        self.bulks: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
        self.refreshes = 0
        real_bulk = client.bulk

        def bulk(body: list[dict[str, Any]], **kwargs: Any) -> Any:
            self.bulks.append((body, kwargs))
            return real_bulk(body=body, **kwargs)

        def refresh(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - must never be called
            self.refreshes += 1

        client.bulk = bulk  # type: ignore[method-assign,assignment]
        client.indices.refresh = refresh  # type: ignore[attr-defined]


def count(client: OpenSearch, index: str, query: dict[str, Any]) -> int:
    return int(client.count(index=index, body={"query": query})["count"])


def test_index_is_created_with_the_knn_mapping(os_client, os_admin, index_name):
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="es")
    store.ensure_index()
    store.ensure_index()
    OpenSearchMemoryStore(os_client, index=index_name, dimension=8).ensure_index()  # exists already
    mapping = os_admin.indices.get_mapping(index=index_name)[index_name]["mappings"]["properties"]
    assert mapping["embedding"]["type"] == "knn_vector"
    assert mapping["embedding"]["dimension"] == 8
    assert mapping["embedding"]["method"] == {
        "name": "hnsw",
        "engine": "faiss",
        "space_type": "innerproduct",
        "parameters": {"ef_construction": 128, "m": 16},
    }
    keywords = ["memory_id", "namespace", "namespace_prefixes", "owner_user_id", "content_hash", "tags"]
    keywords += ["source", "agent_id", "task_id", "chat_id", "session_id", "run_id", "derived_from"]
    assert all(mapping[name]["type"] == "keyword" for name in keywords)
    assert all(mapping[name]["type"] == "date" for name in ["created_at", "updated_at", "expires_at"])
    assert all(mapping[name]["type"] == "boolean" for name in ["deleted", "superseded"])
    assert index_body(8)["settings"] == {"index": {"knn": True}}


def test_a_concurrent_index_creation_is_tolerated(os_client, index_name, monkeypatch):
    OpenSearchMemoryStore(os_client, index=index_name, dimension=8).ensure_index()
    monkeypatch.setattr(os_client.indices, "exists", lambda **_: False)
    OpenSearchMemoryStore(os_client, index=index_name, dimension=8).ensure_index()


def test_a_vector_of_the_wrong_dimension_is_rejected(os_client, os_admin, index_name):
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="es")
    with pytest.raises(MemoryUnavailable, match="dimension"):
        store.put([(doc("short vector"), [1.0, 0.0, 0.0])])
    assert count(os_admin, index_name, {"match_all": {}}) == 0


def test_bulk_bodies_are_indexed_for_real(os_client, os_admin, index_name):
    spy = BulkSpy(os_client)
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="aoss")
    entries = [
        doc("one", metadata={"source": "run_input", "agent_id": "helper", "chat_id": "c1"}),
        doc("two", "vector.agent.alice.memory", expires_at=later(days=1)),
        doc("three", "vector.global.howto", tags=["how"]),
    ]
    assert store.put([(e, unit(1, i)) for i, e in enumerate(entries)]) == [e.id for e in entries]
    assert count(os_admin, index_name, {"match_all": {}}) == 3
    assert count(os_admin, index_name, {"term": {"namespace_prefixes": "vector.user.alice."}}) == 1
    assert count(os_admin, index_name, {"term": {"namespace_prefixes": "vector."}}) == 3
    assert count(os_admin, index_name, {"term": {"agent_id": "helper"}}) == 1
    assert count(os_admin, index_name, {"term": {"memory_id": entries[2].id}}) == 1
    [(body, kwargs)] = spy.bulks
    assert kwargs == {}  # no refresh on aoss
    assert spy.refreshes == 0
    assert body[0] == {"index": {"_index": index_name}}  # no _id: vector collections reject it
    assert all("_id" not in line.get("index", {}) for line in body[::2])
    assert body[1]["namespace_prefixes"] == ["vector.", "vector.user.", "vector.user.alice."]
    assert body[1]["created_at"] == "2026-11-30T09:05:00.000000Z"
    assert body[1]["expires_at"] is None
    assert (body[1]["source"], body[1]["chat_id"]) == ("run_input", "c1")
    assert len(body[1]["embedding"]) == 8


def test_a_refresh_on_aoss_updates_by_the_returned_id(os_client, os_admin, index_name):
    spy = BulkSpy(os_client)
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="aoss")
    first = doc("same", tags=["a"])
    store.put([(first, unit(1))])
    [os_id] = [hit["_id"] for hit in os_admin.search(index=index_name)["hits"]["hits"]]
    assert store.put([(doc("same", tags=["b"], at=later(hours=1)), unit(1))]) == [first.id]
    action, partial = spy.bulks[-1][0]
    assert action == {"update": {"_index": index_name, "_id": os_id}}
    assert partial["doc"]["tags"] == ["a", "b"]
    assert partial["doc"]["updated_at"] == "2026-11-30T10:05:00.000000Z"
    assert "embedding" not in partial["doc"]
    assert count(os_admin, index_name, {"match_all": {}}) == 1


def test_es_uses_mneme_ids_and_refreshes(os_client, index_name):
    spy = BulkSpy(os_client)
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="es")
    entry = doc("on a managed domain")
    store.put([(entry, unit(1))])
    [(body, kwargs)] = spy.bulks
    assert body[0] == {"index": {"_index": index_name, "_id": entry.id}}
    assert kwargs == {"refresh": "wait_for"}
    assert os_client.get(index=index_name, id=entry.id)["_source"]["memory_id"] == entry.id


def test_soft_delete_and_cascade_for_real(os_client, os_admin, index_name):
    spy = BulkSpy(os_client)
    store = OpenSearchMemoryStore(os_client, index=index_name, dimension=8, service="aoss")
    root = doc("root")
    child = doc("child", derived_from=[root.id])
    grandchild = doc("grandchild", "vector.agent.alice.memory", derived_from=[child.id])
    other = doc("other")
    store.put([(e, unit(1)) for e in (root, child, grandchild, other)])
    marked = store.soft_delete(root.id, root.namespace, now=later(minutes=1))
    assert sorted(marked) == sorted([root.id, child.id, grandchild.id])
    assert count(os_admin, index_name, {"term": {"deleted": True}}) == 3
    assert count(os_admin, index_name, {"term": {"deleted": False}}) == 1
    updates = spy.bulks[-1][0]
    assert len(updates) == 6
    assert all(set(line) == {"update"} and line["update"]["_id"] for line in updates[::2])
    assert all(
        line == {"doc": {"deleted": True, "updated_at": "2026-11-30T09:06:00.000000Z"}} for line in updates[1::2]
    )


def test_the_knn_request_puts_the_filter_inside_the_knn_clause():
    patterns = ["vector.user.alice.memory", "vector.user.alice.*", "vector.global.*"]
    body = knn_query([0.6, 0.8], patterns, 20, NOW)
    assert set(body) == {"size", "_source", "query"}  # no post_filter, no bool around the knn clause
    assert (body["size"], body["_source"]) == (20, {"excludes": ["embedding"]})
    assert list(body["query"]) == ["knn"]
    knn = body["query"]["knn"]["embedding"]
    assert set(knn) == {"vector", "k", "filter"}
    assert (knn["vector"], knn["k"]) == ([0.6, 0.8], 20)
    namespaces, deleted, superseded, expiry = knn["filter"]["bool"]["filter"]
    prefixes = ["vector.global.", "vector.user.alice."]
    assert namespaces == {
        "bool": {
            "should": [
                {"terms": {"namespace": ["vector.user.alice.memory"]}},
                {"terms": {"namespace_prefixes": prefixes}},
            ],
            "minimum_should_match": 1,
        }
    }
    assert (deleted, superseded) == ({"term": {"deleted": False}}, {"term": {"superseded": False}})
    missing = {"bool": {"must_not": [{"exists": {"field": "expires_at"}}]}}
    later_than_now = {"range": {"expires_at": {"gt": "2026-11-30T09:05:00.000000Z"}}}
    assert expiry == {"bool": {"should": [missing, later_than_now], "minimum_should_match": 1}}


class CannedClient:
    """Records search bodies and answers with a canned response."""

    def __init__(self, response: dict[str, Any]) -> None:
        self.response = response
        self.bodies: list[dict[str, Any]] = []

    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(body)
        return self.response


REAL_RESPONSE: dict[str, Any] = {  # the shape OpenSearch 2.x returns for a knn query
    "took": 4,
    "timed_out": False,
    "_shards": {"total": 2, "successful": 2, "skipped": 0, "failed": 0},
    "hits": {
        "total": {"value": 2, "relation": "eq"},
        "max_score": 1.82,
        "hits": [
            {
                "_index": "mneme-memory",
                "_id": "1%3A0%3AxOmpK5QBk3U2a9ZxAbcd",
                "_score": 1.82,
                "_source": {
                    "memory_id": "m-1",
                    "namespace": "vector.user.alice.memory",
                    "namespace_prefixes": ["vector.", "vector.user.", "vector.user.alice."],
                    "owner_user_id": "alice",
                    "content": "Alice prefers tea.",
                    "content_hash": "abc",
                    "tags": ["pref"],
                    "metadata": {"source": "run_output", "run_id": "r-1"},
                    "source": "run_output",
                    "run_id": "r-1",
                    "derived_from": [],
                    "created_at": "2026-11-29T08:00:00.000000Z",
                    "updated_at": "2026-11-29T08:00:00.000000Z",
                    "expires_at": None,
                    "deleted": False,
                    "superseded": False,
                },
            },
            {
                "_index": "mneme-memory",
                "_id": "1%3A0%3AyPmpK5QBk3U2a9ZxEfgh",
                "_score": 0.8,
                "_source": {
                    "memory_id": "m-2",
                    "namespace": "vector.global.howto",
                    "owner_user_id": "",
                    "content": "How to brew.",
                    "content_hash": "def",
                    "created_at": "2026-11-01T00:00:00.000000Z",
                    "updated_at": "2026-11-02T00:00:00.000000Z",
                    "expires_at": "2027-01-01T00:00:00.000000Z",
                },
            },
        ],
    },
}


def test_a_real_shaped_response_is_parsed():
    client = CannedClient(REAL_RESPONSE)
    store = OpenSearchMemoryStore(client, index="mneme-memory", dimension=2)  # type: ignore[arg-type]
    found = store.search([1.0, 0.0], ["vector.user.alice.*", "vector.global.*"], 8, now=NOW)
    assert client.bodies[0]["query"]["knn"]["embedding"]["k"] == 8
    assert [c.document.id for c in found] == ["m-1", "m-2"]
    assert found[0].similarity == pytest.approx(0.82)
    assert found[1].similarity == pytest.approx(-0.25)  # 1 / (1 - ip) = 0.8
    first = found[0].document
    assert (first.namespace, first.tags, first.metadata) == (
        "vector.user.alice.memory",
        ["pref"],
        {"source": "run_output", "run_id": "r-1"},
    )
    assert found[1].document.expires_at == datetime(2027, 1, 1, tzinfo=UTC)
    assert parse_hits({"hits": {"hits": []}}) == []


@pytest.mark.parametrize("ip", [-1.0, -0.5, -0.01, 0.0, 0.01, 0.42, 0.999, 1.0])
def test_the_score_mapping_inverts_faiss_innerproduct_scoring(ip):
    assert score_to_similarity(faiss_ip_score(ip)) == pytest.approx(ip)


@pytest.mark.parametrize("service", ["aoss", "es"])
def test_the_client_is_built_for_the_endpoint_and_service(service):
    credentials = Credentials("AKIDEXAMPLE", "secret", "token")
    client = opensearch_client(f"abc123.us-east-1.{service}.amazonaws.com/", "eu-west-1", service, credentials)
    assert (client._url, client._service, client._region) == (
        f"https://abc123.us-east-1.{service}.amazonaws.com",
        service,
        "eu-west-1",
    )


def test_transport_errors_become_memory_unavailable(osmem, index_name):
    dead = SignedOpenSearch("http://127.0.0.1:9", timeout=1, max_retries=0)
    store = OpenSearchMemoryStore(dead, index=index_name, dimension=8, service="es")
    with pytest.raises(MemoryUnavailable):
        store.search(unit(1), ["vector.user.alice.*"], 5, now=NOW)
    with pytest.raises(MemoryUnavailable):
        store.put([(doc("x"), unit(1))])
    with pytest.raises(MemoryUnavailable):
        store.get("m-1", "vector.user.alice.memory")
    real = OpenSearchMemoryStore(SignedOpenSearch(osmem.url), index=index_name, dimension=8)
    assert real.search(unit(1), ["vector.user.alice.*"], 5, now=NOW) == []  # no index yet: nothing stored
    assert real.get("m-1", "vector.user.alice.memory") is None
    real.put([(doc("x"), unit(1))])
    with pytest.raises(MemoryUnavailable, match="knn"):  # osmem rejects k-NN queries with a 400
        real.search(unit(1), ["vector.user.alice.*"], 5, now=NOW)
