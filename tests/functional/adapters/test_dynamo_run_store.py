"""RunStore on the three ItemTable backends."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.adapters.dynamo.items import query_all
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.errors import Conflict, NotFound
from mneme.models import Run, RunEvent, RunStatus, Usage
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> ItemRunStore:
    return ItemRunStore(backend.main)


def _run(run_id: str = "r1", **fields: Any) -> Run:
    return Run(
        run_id=run_id,
        user_id="alice",
        agent_id="helper",
        root_run_id=run_id,
        created_at=T0,
        updated_at=T0,
        **fields,
    )


def _big_request(size: int) -> dict[str, Any]:
    text = "".join(chr(0x41 + i % 26) for i in range(size // 2)) + "äöü€😀" * (size // 20)
    return {
        "modelId": "m",
        "system": [{"text": "s"}],
        "messages": [{"role": "user", "content": [{"text": text}]}],
    }


def test_create_get_and_conflict(store: ItemRunStore) -> None:
    run = _run(input="hello", usage=Usage(input_tokens=3), children=["c1"])
    store.create_run(run)
    assert store.get_run("r1") == run
    assert store.get_run("nope") is None
    with pytest.raises(Conflict):
        store.create_run(run.model_copy(update={"input": "other"}))
    assert store.get_run("r1") == run


def test_update_run_version_conflict(store: ItemRunStore) -> None:
    run = _run()
    store.create_run(run)
    updated = store.update_run(run.model_copy(update={"status": RunStatus.RUNNING}))
    assert updated.version == 1
    assert store.get_run("r1") == updated
    with pytest.raises(Conflict):  # a writer still holding version 0
        store.update_run(run.model_copy(update={"status": RunStatus.FAILED}))
    done = store.update_run(updated.model_copy(update={"status": RunStatus.SUCCEEDED, "output": "ok"}))
    assert (done.version, store.get_run("r1")) == (2, done)
    with pytest.raises(NotFound):
        store.update_run(_run("ghost"))


def test_events_in_order(store: ItemRunStore) -> None:
    events = [RunEvent(seq=i, type="tool_call", at=T0, data={"call_id": f"c{i}", "score": 0.5}) for i in range(12)]
    store.append_events("r1", events[:5])
    store.append_events("r1", events[5:])
    store.append_events("r1", events[3:5])  # a retried append rewrites the same items
    assert store.list_events("r1") == events
    assert store.list_events("r2") == []


def test_a_commit_of_events_over_4_mb_in_utf8_is_stored(store: ItemRunStore) -> None:
    """The commit measured its transaction in characters (3.5 million): 14 events of 100,000 CJK characters are
    1.4 million characters but 4.2 MB in UTF-8, over DynamoDB's 4 MB, and the step's commit was refused."""
    run = store.commit(_run(), create=True)
    events = [RunEvent(seq=i, type="memory_hits", at=T0, data={"text": f"{i:02d}" + "中" * 100_000}) for i in range(14)]
    store.commit(run, events=events)
    assert store.list_events("r1") == events
    stored = store.get_run("r1")
    assert stored is not None and stored.version == run.version + 1


def test_requests_round_trip_in_order(store: ItemRunStore) -> None:
    requests = [{"modelId": "m", "messages": [{"role": "user", "content": [{"text": f"q{i}"}]}]} for i in range(3)]
    for seq, request in reversed(list(enumerate(requests))):
        store.put_request("r1", seq, request)
    assert store.list_requests("r1") == requests


def test_large_request_is_chunked(store: ItemRunStore, backend: Backend) -> None:
    big = _big_request(450_000)  # > 400 KB of JSON (non-ASCII escaped): must spill
    store.put_request("r1", 0, {"modelId": "small"})
    store.put_request("r1", 1, big)
    store.put_request("r1", 2, {"modelId": "after"})
    assert store.list_requests("r1") == [{"modelId": "small"}, big, {"modelId": "after"}]
    chunks = [i for i in query_all(backend.main, "RUN#r1", sk_prefix="REQ#000001#")]
    assert len(chunks) >= 2


def test_rewriting_a_large_blob_removes_old_chunks(store: ItemRunStore, backend: Backend) -> None:
    store.save_checkpoint("r1", {"state": _big_request(700_000)})
    first = len(query_all(backend.main, "RUN#r1", sk_prefix="CHECKPOINT#"))
    store.save_checkpoint("r1", {"state": _big_request(400_000)})
    second = len(query_all(backend.main, "RUN#r1", sk_prefix="CHECKPOINT#"))
    assert first > second >= 2
    assert store.load_checkpoint("r1") == {"state": _big_request(400_000)}
    store.save_checkpoint("r1", {"small": True})
    assert query_all(backend.main, "RUN#r1", sk_prefix="CHECKPOINT#") == []
    assert store.load_checkpoint("r1") == {"small": True}


def test_checkpoint(store: ItemRunStore) -> None:
    assert store.load_checkpoint("r1") is None
    store.save_checkpoint("r1", {"step": 1, "pending": [{"call_id": "a"}], "ratio": 0.5})
    store.save_checkpoint("r1", {"step": 2})
    assert store.load_checkpoint("r1") == {"step": 2}


def test_run_items_do_not_leak_into_each_other(store: ItemRunStore) -> None:
    store.create_run(_run("r1"))
    store.create_run(_run("r10"))
    store.append_events("r1", [RunEvent(seq=0, type="run_started", at=T0)])
    store.put_request("r1", 0, {"modelId": "m"})
    store.save_checkpoint("r1", {"x": 1})
    assert store.list_events("r10") == [] and store.list_requests("r10") == []
    assert store.load_checkpoint("r10") is None


def test_list_unfinished_lists_each_run_until_it_is_final(store: ItemRunStore) -> None:
    # Given runs in every state, created through every write path
    store.create_run(_run("queued", status=RunStatus.QUEUED))
    waiting = store.commit(_run("waiting", status=RunStatus.WAITING_APPROVAL), create=True)
    running = store.commit(_run("running", status=RunStatus.RUNNING), create=True)
    store.create_run(_run("done", status=RunStatus.SUCCEEDED))
    # Then exactly the unfinished ones are listed
    assert sorted(r.run_id for r in store.list_unfinished()) == ["queued", "running", "waiting"]
    # When two of them end (by a commit and by an update)
    store.commit(running.model_copy(update={"status": RunStatus.FAILED}))
    store.update_run(waiting.model_copy(update={"status": RunStatus.CANCELLED}))
    # Then they leave the listing, and the listing carries versions that a conditional write accepts
    (queued,) = store.list_unfinished()
    assert queued.run_id == "queued"
    store.update_run(queued.model_copy(update={"status": RunStatus.RUNNING}))
