"""A data folder from before ``GET /v1/runs`` (issue 33.3): its root runs — failed ones too — are listed after
the next start, once; sub-runs stay off the list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from mneme.adapters.dynamo.items import MAIN_SCHEMA, TableSchema
from mneme.adapters.dynamo.run_list import RUNS_INDEX_PK, RUNS_INDEX_SK
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.models import Run, RunStatus
from mneme.ports.runs import RunFilter
from mneme_local.run_list_backfill import list_earlier_runs
from mneme_local.sqlite_items import SqliteItemTable

BEFORE = TableSchema({"GSI1": ("GSI1PK", "GSI1SK")})
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _run(run_id: str, minute: int, **fields: object) -> Run:
    at = T0 + timedelta(minutes=minute)
    return Run(run_id=run_id, user_id="alice", agent_id="helper", created_at=at, updated_at=at, **fields)


def _old_folder(path: Path) -> None:
    """Runs as the code before the index stored them: no listing attributes."""
    old = SqliteItemTable(path, "main", BEFORE)
    store = ItemRunStore(old)
    store.create_run(_run("r1", 1, root_run_id="r1", status=RunStatus.FAILED, error="boom"))
    store.create_run(_run("r2", 2, root_run_id="r2", children=["c1"]))
    store.create_run(_run("c1", 3, root_run_id="r2", parent_run_id="r2", depth=1))
    for run_id in ("r1", "r2", "c1"):
        item = old.get(f"RUN#{run_id}", "RUN")
        assert item is not None
        for name in (RUNS_INDEX_PK, RUNS_INDEX_SK, "agent_id", "chat_id"):
            item.pop(name, None)
        old.put(item)
    old.close()


def test_the_earlier_root_runs_are_listed_after_the_backfill(tmp_path: Path) -> None:
    path = tmp_path / "mneme.sqlite3"
    _old_folder(path)
    table = SqliteItemTable(path, "main", MAIN_SCHEMA)
    store = ItemRunStore(table)
    assert store.list_runs("alice", RunFilter()).runs == []
    assert list_earlier_runs(table) == 2
    assert [run.run_id for run in store.list_runs("alice", RunFilter()).runs] == ["r2", "r1"]
    assert [run.run_id for run in store.list_runs("alice", RunFilter(status="failed")).runs] == ["r1"]


def test_the_backfill_runs_once(tmp_path: Path) -> None:
    path = tmp_path / "mneme.sqlite3"
    _old_folder(path)
    table = SqliteItemTable(path, "main", MAIN_SCHEMA)
    list_earlier_runs(table)
    item = table.get("RUN#r1", "RUN")
    assert item is not None
    for name in (RUNS_INDEX_PK, RUNS_INDEX_SK):
        item.pop(name)
    table.put(item)  # taken off the index again: a second start does not look
    assert list_earlier_runs(table) == 0
    assert [run.run_id for run in ItemRunStore(table).list_runs("alice", RunFilter()).runs] == ["r2"]
