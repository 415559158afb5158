"""Memory over HTTP with the issue 13 / 11.3 behaviour: hybrid recall, the filter in both legs, long documents
in chunks under Titan's limit (a 413 past the entry limit), lifecycle fields and reserved metadata."""

from __future__ import annotations

import math

import pytest

from mneme.memory.embedding_limits import LOCAL_MINILM, TITAN_V2
from mneme.spec_limits import MAX_DOCUMENT_CHARS
from tests.fakes.embedder import HashingEmbedder
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "what is the wifi password"


@pytest.fixture
def titan(world: World) -> World:
    world.deps.embedder = world.embedder = HashingEmbedder(model_id=TITAN_V2.model_id)
    return world


def _keyword_only_world(world: World) -> str:
    """Five entries close to the query by vector, and the answer far from it but sharing "wifi password"."""
    for i in range(5):
        remember_at(world, ALICE, f"Weather diary entry number {i} was sunny", query=QUERY, similarity=0.6 - i / 100)
    return remember_at(world, ALICE, "wifi password: zebra-4471", query=QUERY, similarity=-0.3)


def _search(api: Api, **body: object) -> list[str]:
    reply = api.post("/v1/memory/search", {"query": QUERY, "namespaces": [ALICE], "top_k": 5, **body})
    assert reply.status == 200, reply.text
    return [hit["id"] for hit in reply.body["hits"]]


def test_hybrid_finds_a_keyword_only_match_that_vector_only_misses(api: Api, world: World) -> None:
    target = _keyword_only_world(world)
    assert target not in _search(api, retrieval="vector")
    assert target in _search(api, retrieval="hybrid")
    assert target in _search(api)  # hybrid is the default


def test_the_filter_holds_inside_both_legs(api: Api, world: World) -> None:
    # Given bob's entries match alice's query best in both legs, and one of hers is deleted
    for i in range(4):
        remember_at(
            world, "vector.user.bob.memory", f"wifi password of bob {i}", query=QUERY, similarity=0.9, owner="bob"
        )
    gone = remember_at(world, ALICE, "old wifi password: lion-1", query=QUERY, similarity=0.8)
    world.memory.soft_delete(gone, ALICE, now=world.clock.now())
    mine = remember_at(world, ALICE, "wifi password: zebra-4471", query=QUERY, similarity=0.1)
    # When alice searches all her namespaces (hybrid) — Then only her live entry comes back
    reply = api.post("/v1/memory/search", {"query": QUERY, "top_k": 5, "retrieval": "hybrid"})
    assert [hit["id"] for hit in reply.body["hits"]] == [mine]
    searched = {ns for patterns, _k in world.memory.searches for ns in patterns}
    assert searched == {"vector.agent.alice.*", "vector.user.alice.*", "vector.global.*"}


def test_a_60000_character_document_is_stored_in_chunks_and_deleted_together(api: Api, titan: World) -> None:
    content = " ".join(f"Paragraph {i}: the harbour crane schedule changes on pier {i % 7}." for i in range(1_000))
    content = content[:60_000]
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": content})
    assert reply.status == 201, reply.text
    ids = reply.body["ids"]
    assert len(ids) == len(set(ids)) >= math.ceil(60_000 / TITAN_V2.chunk_chars)
    assert all(len(titan.memory.documents[i].content) <= TITAN_V2.chunk_chars for i in ids)
    hit = api.post("/v1/memory/search", {"query": "crane schedule on pier 3", "namespaces": [ALICE]}).body["hits"][0]
    assert hit["chunk_count"] == len(ids) and (hit["parent_id"] in (None, ids[0]))
    assert api.delete(f"/v1/memory/documents/{ids[0]}").status == 204
    assert all(titan.memory.documents[i].deleted for i in ids)


def test_content_over_the_entry_limit_is_a_413_naming_the_limit(api: Api, titan: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "x " * (MAX_DOCUMENT_CHARS // 2 + 10)})
    assert reply.status == 413
    assert f"{MAX_DOCUMENT_CHARS:,}" in reply.body["message"]
    assert titan.memory.documents == {}


def test_a_document_just_under_titans_own_limit_is_one_entry_or_chunks_never_a_503(api: Api, titan: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "word " * 9_999})
    assert reply.status == 201 and len(reply.body["ids"]) >= 1


def test_reserved_metadata_keys_are_refused(api: Api, world: World) -> None:
    body = {"namespace": ALICE, "content": "a note", "metadata": {"source": "extracted", "status": "active"}}
    reply = api.post("/v1/memory/documents", body)
    assert reply.status == 400 and "source, status" in reply.body["message"]
    assert world.memory.documents == {}


def test_user_metadata_observed_at_and_class_are_stored(api: Api, world: World) -> None:
    body = {
        "namespace": ALICE,
        "content": "Alice met Bruno at the conference.",
        "metadata": {"topic": "work"},
        "observed_at": "2026-03-01T10:00:00Z",
        "class": "episodic",
    }
    (doc_id,) = api.post("/v1/memory/documents", body).body["ids"]
    stored = world.memory.documents[doc_id]
    assert stored.metadata["topic"] == "work" and stored.metadata["source"] == "http"
    assert stored.memory_class == "episodic" and stored.authority == "user_directed"
    assert stored.observed_at is not None and stored.observed_at.isoformat().startswith("2026-03-01")


def test_an_unknown_class_is_refused(api: Api) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "x", "class": "gossip"})
    assert reply.status == 400


def test_a_hybrid_hit_shows_its_class_and_each_legs_score(api: Api, world: World) -> None:
    target = _keyword_only_world(world)
    [hit] = [
        h
        for h in api.post("/v1/memory/search", {"query": QUERY, "namespaces": [ALICE]}).body["hits"]
        if h["id"] == target
    ]
    assert hit["class"] == "semantic" and hit["keyword_score"] > 0
    assert hit["vector_similarity"] is None or hit["vector_similarity"] < 0  # far from the query by vector


@pytest.fixture
def minilm(world: World) -> World:
    world.deps.embedder = world.embedder = HashingEmbedder(model_id=LOCAL_MINILM.model_id)
    return world


def _long_text() -> str:
    return " ".join(f"Sentence number {i} of the long report." for i in range(5_000))[:MAX_DOCUMENT_CHARS]


def test_a_200000_character_document_is_stored_whole_never_cut(api: Api, minilm: World) -> None:
    # Issue 31.5: with the local model's 1,000-character chunks only the first 64 chunks (32 %) were stored
    text = _long_text()
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": text})
    assert reply.status == 201, reply.text
    stored = [minilm.memory.documents[i].content for i in reply.body["ids"]]
    assert len(stored) > 64
    assert sum(len(part) for part in stored) >= len(text) - len(stored)  # only the joining spaces are gone
    assert stored[-1].endswith(text.rstrip()[-30:])


def test_a_document_past_the_chunk_limit_is_a_413_naming_it_and_stores_nothing(
    api: Api, minilm: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mneme.engine.memory_io.entries.MAX_CHUNKS", 50)
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": _long_text()})
    assert reply.status == 413 and "50" in reply.body["message"]
    assert minilm.memory.documents == {}
