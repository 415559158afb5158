"""The local store's file outlives a schema change: an index added to the main table (GSI2, the runs list of
issue 33.3) gets its columns in a file made before it, filled from the items already stored."""

from __future__ import annotations

from pathlib import Path

from mneme.adapters.dynamo.items import MAIN_SCHEMA, TableSchema
from mneme_local.sqlite_items import SqliteItemTable

BEFORE = TableSchema({"GSI1": ("GSI1PK", "GSI1SK")})  # the main table's indexes before GSI2


def _old_file(path: Path) -> None:
    old = SqliteItemTable(path, "main", BEFORE)
    old.put({"PK": "RUN#r1", "SK": "RUN", "GSI2PK": "RUNS#alice", "GSI2SK": "2026-11-30T09:00:00.000000Z#r1"})
    old.put({"PK": "RUN#r2", "SK": "RUN"})  # no keys of the new index: stays off it
    old.close()


def test_an_index_added_to_the_schema_is_filled_from_the_stored_items(tmp_path: Path) -> None:
    path = tmp_path / "mneme.sqlite3"
    _old_file(path)
    table = SqliteItemTable(path, "main", MAIN_SCHEMA)
    page = table.query("RUNS#alice", index="GSI2")
    assert [item["PK"] for item in page.items] == ["RUN#r1"]


def test_a_file_with_an_added_index_takes_new_writes_on_it(tmp_path: Path) -> None:
    path = tmp_path / "mneme.sqlite3"
    _old_file(path)
    table = SqliteItemTable(path, "main", MAIN_SCHEMA)
    table.put({"PK": "RUN#r3", "SK": "RUN", "GSI2PK": "RUNS#alice", "GSI2SK": "2026-11-30T10:00:00.000000Z#r3"})
    table.close()
    reopened = SqliteItemTable(path, "main", MAIN_SCHEMA)
    page = reopened.query("RUNS#alice", index="GSI2", forward=False)
    assert [item["PK"] for item in page.items] == ["RUN#r3", "RUN#r1"]
