"""An erasure moments after a write, on OpenSearch Serverless: the entry is not searchable yet (the collection
refreshes every 60 s, ``lagging.py``), and a user's entries are listed by a search — the journal's owner
listing finds it, so ``DELETE /v1/me`` erases it and an export taken in that minute holds it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.dynamo.memory_journal import ItemMemoryJournal
from tests.fakes.clock import FixedClock
from tests.functional.adapters.item_backends import make_backend
from tests.functional.memory.conftest import NOW, KnnEmulatingStore
from tests.functional.memory.lagging import LaggingClient
from tests.functional.privacy.support import DIMENSION, PrivacyWorld, lines, privacy_world, scan_memory


@pytest.fixture
def index_clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def pw(tmp_path: Any, os_client: Any, index_name: str, index_clock: FixedClock) -> Iterator[PrivacyWorld]:
    for backend in make_backend("memory", tmp_path):
        lagging: Any = LaggingClient(os_client, index_clock, 60)
        journal = ItemMemoryJournal(backend.main, index_clock)
        store = KnnEmulatingStore(lagging, index=index_name, dimension=DIMENSION, service="aoss", journal=journal)
        yield privacy_world(backend, store)


def _remember(pw: PrivacyWorld, user: str, content: str) -> str:
    reply = pw.api.post(
        "/v1/memory/documents", {"namespace": f"vector.user.{user}.memory", "content": content}, user=user
    )
    assert reply.status == 201, reply.text
    return str(reply.body["ids"][0])


def _owned_in_the_index(pw: PrivacyWorld, user: str) -> list[str]:
    return [d.content for d in scan_memory(pw.store) if d.owner_user_id == user]


def test_an_entry_written_a_moment_before_the_erasure_is_erased(pw: PrivacyWorld, index_clock: FixedClock) -> None:
    # Given an entry of alice's and one of bob's, written a moment ago: no search shows them yet
    _remember(pw, "alice", "alice's locker code is 4471")
    _remember(pw, "bob", "bob likes tea")
    assert _owned_in_the_index(pw, "alice") == []
    # When alice erases herself within that minute
    reply = pw.api.delete("/v1/me", user="alice")
    assert reply.status == 200, reply.text
    # Then the receipt counts her entry, and once the index refreshes it holds nothing of hers, bob's entry still
    assert reply.body["counts"].get("memory") == 1, reply.body
    index_clock.advance(seconds=61)
    assert _owned_in_the_index(pw, "alice") == []
    assert _owned_in_the_index(pw, "bob") == ["bob likes tea"]


def test_an_export_a_moment_after_a_write_holds_the_entry(pw: PrivacyWorld) -> None:
    # Given an entry alice wrote a moment ago (not searchable yet) and one of bob's
    doc_id = _remember(pw, "alice", "alice's locker code is 4471")
    _remember(pw, "bob", "bob likes tea")
    # When she exports her data within that minute
    reply = pw.api.post("/v1/me/export", None, user="alice")
    assert reply.status == 202 and reply.body["status"] == "ready", reply.text
    # Then the archive lists her entry, and nothing of bob's
    memories = [line for line in lines(pw, "alice") if line["kind"] == "memory"]
    assert [line["data"]["content"] for line in memories] == ["alice's locker code is 4471"]
    assert doc_id in memories[0]["key"]
