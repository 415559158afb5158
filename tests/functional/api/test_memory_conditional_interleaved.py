"""An ``If-Match`` change of a memory entry and a change without it landing in between: the conditional one is a
412 whenever the entry changed after its ETag was read — whoever changed it — and is applied when nothing did.
Before, the claim guarded only against another conditional change: a change without ``If-Match`` made while
the conditional PATCH was being embedded was silently overwritten by it (a 200 for a stale ETag)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tests.functional.api.conftest import Api
from tests.functional.api.test_memory_conditional_races import stack
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
__all__ = ["stack"]  # the fixture: every item backend and memory store


def _while_embedding(world: World, change: Callable[[], None]) -> None:
    """``change`` runs once, while the next content is being embedded (after its request checked If-Match)."""
    embed, done = world.embedder.embed, list[int]()

    def embed_and_change(texts: Any) -> Any:
        if not done:
            done.append(1)
            _elsewhere(change)
        return embed(texts)

    world.embedder.embed = embed_and_change  # type: ignore[method-assign]


def _entry(api: Api, world: World) -> tuple[str, str]:
    path = f"/v1/memory/documents/{remember(world, ALICE, 'Alice lives in Porto')}"
    return path, api.get(path).headers["etag"]


def test_a_conditional_patch_after_an_unconditional_one_landed_meanwhile_is_a_412(stack: tuple[Api, World]) -> None:
    api, world = stack
    path, seen = _entry(api, world)
    _while_embedding(world, lambda: _ok(api.call("PATCH", path, {"tags": ["moved"]})))
    reply = api.call("PATCH", path, {"content": "Alice lives in Lisbon"}, headers={"if-match": seen})
    assert reply.status == 412
    entry = api.get(path)
    assert (entry.body["content"], entry.body["tags"]) == ("Alice lives in Porto", ["moved"])
    assert reply.headers["etag"] == entry.headers["etag"]  # the version to read again


def test_a_conditional_delete_after_an_unconditional_patch_landed_meanwhile_is_a_412(stack: tuple[Api, World]) -> None:
    api, world = stack
    path, seen = _entry(api, world)
    store = world.deps.memory
    assert store is not None
    soft_delete = store.soft_delete

    def patch_first(*args: Any, **kwargs: Any) -> Any:
        store.soft_delete = soft_delete  # type: ignore[method-assign]
        _elsewhere(lambda: _ok(api.call("PATCH", path, {"content": "Alice lives in Braga"})))
        return soft_delete(*args, **kwargs)

    store.soft_delete = patch_first  # type: ignore[method-assign]
    assert api.delete(path, headers={"if-match": seen}).status == 412
    assert api.get(path).body["content"] == "Alice lives in Braga"


def test_a_conditional_patch_nobody_interrupted_is_applied_in_full(stack: tuple[Api, World]) -> None:
    api, world = stack
    path, seen = _entry(api, world)
    both = {"content": "Alice lives in Lisbon", "status": "active"}  # two changes of the store: content, status
    reply = api.call("PATCH", path, both, headers={"if-match": seen})
    assert reply.status == 200 and api.get(path).body["content"] == "Alice lives in Lisbon"
    assert api.call("PATCH", path, {"tags": ["x"]}, headers={"if-match": reply.headers["etag"]}).status == 200


def _elsewhere(change: Callable[[], None]) -> None:
    """Another request, served apart (its own thread: its own context), to its end."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            change()
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=10)
    assert not failed, failed


def _ok(reply: Any) -> None:
    assert reply.status in (200, 204), reply.body
