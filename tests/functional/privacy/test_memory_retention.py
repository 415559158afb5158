"""Retention of memories by class, on every memory store: an entry of a class with a retention expires that
many days after it was written, is never returned again by any read path from then on (before anything
deletes it), and the purge deletes it for good. The deployment's retention is shown by ``GET /v1/retention``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from mneme.engine.privacy.jobs import purge_memories
from tests.functional.adapters.item_backends import make_backend
from tests.functional.privacy.support import PrivacyWorld, lines, privacy_world, scan_memory, tmp_store

RETENTION = {"MNEME_RETENTION_DAYS_MEMORY_DOCUMENT": 1, "MNEME_RETENTION_DAYS_MEMORY_EPISODIC": 30}


@pytest.fixture(params=["fake", "embedded", "opensearch-es", "opensearch-aoss"])
def pw(request: pytest.FixtureRequest, tmp_path: Any, index_name: str) -> Iterator[PrivacyWorld]:
    client = request.getfixturevalue("os_client") if request.param.startswith("opensearch") else None
    for backend in make_backend("memory", tmp_path):
        yield privacy_world(backend, tmp_store(request.param, tmp_path, client, index_name), **RETENTION)


def _write(pw: PrivacyWorld, content: str) -> str:
    reply = pw.api.post("/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": content})
    assert reply.status == 201, reply.text
    return str(reply.body["ids"][0])


def _found(pw: PrivacyWorld, query: str) -> list[str]:
    reply = pw.api.post("/v1/memory/search", {"query": query})
    assert reply.status == 200, reply.text
    return [hit["id"] for hit in reply.body["hits"]]


def test_the_retention_of_the_deployment_is_shown(pw: PrivacyWorld) -> None:
    body = pw.api.get("/v1/retention").body
    assert body["memory_days"] == {"episodic": 30, "semantic": 0, "preference": 0, "procedural": 0, "document": 1}
    assert (body["chats_days"], body["runs_days"], body["requests_days"], body["exports_days"]) == (0, 0, 0, 7)


def test_an_entry_past_its_class_retention_is_never_returned_then_purged(pw: PrivacyWorld) -> None:
    # Given an uploaded document (class "document", kept 1 day)
    doc_id = _write(pw, "The Apollo review is due on March 15.")
    [stored] = [d for d in scan_memory(pw.store) if d.id == doc_id]
    assert stored.memory_class == "document" and stored.expires_at == stored.created_at + timedelta(days=1)
    assert _found(pw, "When is the Apollo review due?") == [doc_id]
    # When two days pass
    pw.world.clock.advance(days=2)
    # Then no read path returns it, though it is still stored
    assert _found(pw, "When is the Apollo review due?") == []
    assert pw.api.delete(f"/v1/memory/documents/{doc_id}").status == 404
    pw.api.post("/v1/me/export", None)
    assert [line for line in lines(pw, "alice") if line["kind"] == "memory"] == []
    assert [d.id for d in scan_memory(pw.store)] == [doc_id]
    # and the purge deletes it for good
    assert purge_memories(pw.world.deps) == {"purged": 1}
    assert scan_memory(pw.store) == []


def test_an_entry_of_a_class_without_retention_is_kept(pw: PrivacyWorld) -> None:
    pw.api.put("/v1/agents/helper", {"label": "Helper", "memory_policy": {"allow_write": True}})
    reply = pw.api.post("/v1/runs", {"agent_id": "helper", "input": "x" * 90})
    assert reply.status == 200, reply.text
    pw.drain_memory_queue()
    episodes = [d for d in scan_memory(pw.store) if d.memory_class == "episodic"]
    assert len(episodes) == 2  # the run's input and its answer, kept 30 days
    assert all(d.expires_at == d.created_at + timedelta(days=30) for d in episodes)
    pw.world.clock.advance(days=2)
    assert purge_memories(pw.world.deps) == {"purged": 0}
    assert len(_found(pw, "x" * 90)) == 2
