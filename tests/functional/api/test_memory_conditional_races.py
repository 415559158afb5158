"""Two requests that read the same memory entry (the same ETag) and change it with ``If-Match`` at once: one
wins, the other is a 412 (RFC 9110 §13.1.1) — on every item backend and memory store, not only one after the
other. Before, both passed the check on the entry as read and both wrote: the second silently undid the first."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.errors import EmbeddingUnavailable
from tests.functional.adapters.item_backends import make_backend
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember
from tests.functional.memory.conftest import make_store
from tests.support.deps import World, make_world

ALICE = "vector.user.alice.memory"
STACKS = [("memory", "fake"), ("sqlite", "embedded"), ("dynamo", "fake")]


@pytest.fixture(params=STACKS, ids=lambda s: f"{s[0]}+{s[1]}")
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Api, World]]:
    backend_name, store_kind = request.param
    for backend in make_backend(backend_name, tmp_path):
        store = make_store(store_kind, tmp_path, None, "unused", 256)
        world = make_world(OfflineModel(), tables=(backend.main, backend.audit), store=store)
        yield Api(world), world


def _both_read_then_change(api: Api, world: World, *changes: tuple[str, dict[str, Any] | None]) -> list[int]:
    """Send the changes at once, each with the ETag read before; every request reads the entry before any
    of them goes on (the interleaving that loses an update). Answers their statuses, in order."""
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    path = f"/v1/memory/documents/{doc_id}"
    seen = api.get(path).headers["etag"]
    store, barrier = world.deps.memory, threading.Barrier(len(changes), timeout=10)
    assert store is not None
    find = store.find

    def read_together(*args: Any, **kwargs: Any) -> Any:
        found = find(*args, **kwargs)
        barrier.wait()
        return found

    store.find = read_together  # type: ignore[method-assign]
    statuses = [0] * len(changes)

    def send(index: int, method: str, body: dict[str, Any] | None) -> None:
        statuses[index] = api.call(method, path, body, headers={"if-match": seen}).status

    threads = [threading.Thread(target=send, args=(i, *change)) for i, change in enumerate(changes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.find = find  # type: ignore[method-assign]
    return statuses


def test_two_patches_with_the_same_etag_one_wins_the_other_is_a_412(stack: tuple[Api, World]) -> None:
    api, world = stack
    lisbon, braga = ("PATCH", {"content": "Alice lives in Lisbon"}), ("PATCH", {"content": "Alice lives in Braga"})
    statuses = _both_read_then_change(api, world, lisbon, braga)
    assert sorted(statuses) == [200, 412]
    doc_id = next(iter(world.deps.revisions.owned("alice"))).doc_id  # type: ignore[union-attr]
    assert api.get(f"/v1/memory/documents/{doc_id}").body["content"] == (
        "Alice lives in Lisbon" if statuses[0] == 200 else "Alice lives in Braga"
    )
    assert len(world.deps.audit.query("alice", action="update").records) == 1


def test_a_patch_and_a_delete_with_the_same_etag_one_wins_the_other_is_a_412(stack: tuple[Api, World]) -> None:
    api, world = stack
    statuses = _both_read_then_change(api, world, ("PATCH", {"content": "Alice lives in Lisbon"}), ("DELETE", None))
    assert statuses in ([200, 412], [412, 204])


def test_a_change_that_failed_gives_the_version_back(stack: tuple[Api, World]) -> None:
    # Given a PATCH with If-Match that fails before it changed the entry (the embeddings are down)
    api, world = stack
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    path = f"/v1/memory/documents/{doc_id}"
    seen = api.get(path).headers["etag"]
    embed = world.embedder.embed

    def down(texts: Any) -> Any:
        raise EmbeddingUnavailable("down")

    world.embedder.embed = down  # type: ignore[method-assign]
    assert api.call("PATCH", path, {"content": "Alice lives in Lisbon"}, headers={"if-match": seen}).status == 503
    world.embedder.embed = embed  # type: ignore[method-assign]
    # Then the same request sent again (the entry is as it was read) is answered, not refused
    assert api.call("PATCH", path, {"content": "Alice lives in Lisbon"}, headers={"if-match": seen}).status == 200
