"""A run too large for one item on the three ItemTable backends (:mod:`mneme.adapters.dynamo.run_texts`): its
input and output are stored beside it and every read puts them back — a read by id, the unfinished runs, the
user's run list, an export — and an erasure removes them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.adapters.dynamo.items import SK, query_all
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.adapters.dynamo.run_texts import TEXTS_PREFIX
from mneme.models import Run, RunStatus
from mneme.ports.runs import RunFilter
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
INPUT = "中" * 70_000  # 210 KB of UTF-8
ANSWER = "答😀" * 40_000  # 280 KB


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> ItemRunStore:
    return ItemRunStore(backend.main, chunk_chars=100_000)


def _run(**fields: Any) -> Run:
    return Run(run_id="r1", user_id="alice", agent_id="a", root_run_id="r1", created_at=T0, updated_at=T0, **fields)


def _answered(store: ItemRunStore) -> Run:
    store.create_run(_run(input=INPUT))
    running = store.get_run("r1")
    assert running is not None
    done = running.model_copy(update={"status": RunStatus.SUCCEEDED, "output": ANSWER})
    return store.commit(done)


def _texts(backend: Backend) -> list[str]:
    return [str(i[SK]) for i in query_all(backend.main, "RUN#r1") if str(i[SK]).startswith(TEXTS_PREFIX)]


def test_a_run_too_large_for_its_item_reads_back_whole(store: ItemRunStore) -> None:
    stored = _answered(store)
    assert store.get_run("r1") == stored
    assert (stored.input, stored.output) == (INPUT, ANSWER)


def test_an_unfinished_large_run_is_listed_whole(store: ItemRunStore) -> None:
    store.create_run(_run(input=INPUT + "中" * 60_000))  # 390 KB: over the item's limit alone
    assert [run.input for run in store.list_unfinished()] == [INPUT + "中" * 60_000]


def test_the_users_run_list_shows_it_whole(store: ItemRunStore) -> None:
    _answered(store)
    [listed] = store.list_runs("alice", RunFilter()).runs
    assert (listed.input, listed.output) == (INPUT, ANSWER)


def test_only_the_stored_versions_texts_are_kept(store: ItemRunStore, backend: Backend) -> None:
    store.create_run(_run(input=INPUT + "中" * 60_000))
    _answered_again = store.get_run("r1")
    assert _answered_again is not None
    store.commit(_answered_again.model_copy(update={"output": ANSWER}))
    versions = {sk.removeprefix(TEXTS_PREFIX).split("#")[0] for sk in _texts(backend)}
    assert versions == {"000000001"}


def test_an_export_carries_its_input_and_output(store: ItemRunStore) -> None:
    _answered(store)
    owned = list(store.iter_owned("alice", ["r1"], include_expired=True))
    [run] = [item.data for item in owned if item.kind == "run"]
    assert (run["input"], run["output"]) == (INPUT, ANSWER)
    assert not any(item.key.split("|")[1].startswith(TEXTS_PREFIX) for item in owned)  # part of the run


def test_an_erasure_removes_its_texts(store: ItemRunStore, backend: Backend) -> None:
    _answered(store)
    assert _texts(backend)
    store.erase_owned("alice", ["r1"])
    assert _texts(backend) == [] and store.get_run("r1") is None
