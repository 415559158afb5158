"""A run event larger than one DynamoDB item (400 KB: an approval request of a tool call whose arguments are a long
CJK text) is stored in parts beside its item (:mod:`mneme.adapters.dynamo.item_parts`), on the three ItemTable
backends: it reads back whole, by a commit or an append, an export shows it once, and an erasure counts it once
and leaves nothing behind."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.adapters.dynamo.item_parts import EVENT_PARTS
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.models import Run, RunEvent
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
ARGUMENTS = {"text": "答" * 150_000}  # 450 KB of UTF-8


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> ItemRunStore:
    return ItemRunStore(backend.main)


def _run() -> Run:
    return Run(run_id="r1", user_id="alice", agent_id="a", root_run_id="r1", created_at=T0, updated_at=T0)


def _approval(seq: int) -> RunEvent:
    calls = [{"call_id": "c1", "tool": "lookup", "arguments": ARGUMENTS}]
    return RunEvent(seq=seq, type="approval_requested", at=T0, data={"calls": calls})


def _parts(backend: Backend) -> list[str]:
    return [str(i["SK"]) for i in backend.main.query("RUN#r1").items if str(i["SK"]).startswith(EVENT_PARTS)]


def test_a_large_event_committed_or_appended_reads_back_whole(store: ItemRunStore, backend: Backend) -> None:
    small = RunEvent(seq=1, type="run_started", at=T0, data={})
    store.commit(_run(), create=True, events=[small, _approval(2)])
    store.append_events("r1", [_approval(3)])
    assert _parts(backend)  # no item over the limit: every backend refuses one
    events = store.list_events("r1")
    assert [e.seq for e in events] == [1, 2, 3]
    assert [e.data["calls"][0]["arguments"] for e in events[1:]] == [ARGUMENTS, ARGUMENTS]
    assert [e.seq for e in store.iter_events("r1", after=2)] == [3]


def test_a_small_event_is_kept_whole_in_its_item(store: ItemRunStore, backend: Backend) -> None:
    store.commit(_run(), create=True, events=[RunEvent(seq=1, type="warning", at=T0, data={"message": "中" * 100_000})])
    assert _parts(backend) == []


def test_export_shows_a_large_event_once_and_erasure_leaves_nothing(store: ItemRunStore, backend: Backend) -> None:
    store.commit(_run(), create=True, events=[_approval(1)])
    owned = [o for o in store.iter_owned("alice", ["r1"]) if o.kind != "run_index"]
    assert sorted(o.kind for o in owned) == ["event", "run"]
    assert next(o for o in owned if o.kind == "event").data["data"]["calls"][0]["arguments"] == ARGUMENTS
    counts = store.erase_owned("alice", ["r1"])
    assert counts["event"] == 1
    assert backend.main.query("RUN#r1").items == []
