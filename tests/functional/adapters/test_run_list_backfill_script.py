"""scripts/backfill_run_list.py on moto's DynamoDB (the table from template.yaml): a deployed table's earlier root
runs — written without listing attributes — are listed after it; sub-runs are not; a second pass changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from scripts.backfill_run_list import backfill

from mneme.adapters.dynamo.run_list import RUNS_INDEX_PK, RUNS_INDEX_SK
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.models import Run, RunStatus
from mneme.ports.runs import RunFilter
from tests.functional.adapters.item_backends import MAIN, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture
def dynamo(tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend("dynamo", tmp_path)


def _earlier(backend: Backend, run: Run) -> None:
    """A run as the code before GSI2 wrote it."""
    ItemRunStore(backend.main).create_run(run)
    item = backend.main.get(f"RUN#{run.run_id}", "RUN")
    assert item is not None
    for name in (RUNS_INDEX_PK, RUNS_INDEX_SK, "agent_id", "chat_id"):
        item.pop(name, None)
    backend.main.put(item)


def _run(run_id: str, minute: int, **fields: Any) -> Run:
    at = T0 + timedelta(minutes=minute)
    return Run(run_id=run_id, user_id="alice", agent_id="helper", created_at=at, updated_at=at, **fields)


def test_earlier_root_runs_are_listed_after_the_backfill(dynamo: Backend) -> None:
    _earlier(dynamo, _run("r1", 1, root_run_id="r1", status=RunStatus.FAILED, error="boom"))
    _earlier(dynamo, _run("r2", 2, root_run_id="r2", children=["c1"]))
    _earlier(dynamo, _run("c1", 3, root_run_id="r2", parent_run_id="r2", depth=1))
    store = ItemRunStore(dynamo.main)
    assert store.list_runs("alice", RunFilter()).runs == []
    assert backfill(dynamo.client, MAIN) == 2
    assert [run.run_id for run in store.list_runs("alice", RunFilter()).runs] == ["r2", "r1"]
    assert [run.run_id for run in store.list_runs("alice", RunFilter(status="failed")).runs] == ["r1"]


def test_a_second_pass_changes_nothing(dynamo: Backend) -> None:
    _earlier(dynamo, _run("r1", 1, root_run_id="r1"))
    ItemRunStore(dynamo.main).create_run(_run("r2", 2, root_run_id="r2"))  # written by this version
    assert backfill(dynamo.client, MAIN) == 1
    assert backfill(dynamo.client, MAIN) == 0
