"""The local item table's indexes are sparse, as DynamoDB's are: an item without an index's keys (a memory
revision, a run event, an audit record outside a delegation tree) has no entry in it, so storing it updates one
B-tree instead of three. A file made when the indexes held every item gets sparse ones when it is opened, and
queries on an index still read through it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mneme.adapters.dynamo.items import MAIN_SCHEMA
from mneme_local.sqlite_items import SqliteItemTable

ON_GSI1 = {"PK": "RUN#r1", "SK": "RUN", "GSI1PK": "USER#alice", "GSI1SK": "2026-11-30T09:00:00.000000Z#r1"}
OFF_GSI1 = [{"PK": "MEMREV#alice", "SK": f"doc{n}#rev"} for n in range(3)]
WHOLE_INDEX = 'CREATE INDEX "main_ix0" ON "main" (ix0_pk, ix0_sk, pk, sk)'  # the definition before


def _entries(path: Path, index: str) -> int:
    """Entries of ``index`` in the file (every cell of an index B-tree is one entry)."""
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT coalesce(sum(ncell), 0) FROM dbstat WHERE name = ?", (index,)).fetchone()
    return int(row[0])


def _plan(path: Path) -> str:
    with sqlite3.connect(path) as db:
        sql = 'SELECT body FROM "main" WHERE ix0_pk = ? ORDER BY ix0_sk, pk, sk'
        return " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", ("USER#alice",)))


def test_an_item_without_an_index_keys_has_no_entry_in_it(tmp_path: Path) -> None:
    path = tmp_path / "mneme.sqlite3"
    table = SqliteItemTable(path, "main", MAIN_SCHEMA)
    table.put_many([ON_GSI1, *OFF_GSI1])
    assert _entries(path, "main_ix0") == 1
    assert [item["PK"] for item in table.query("USER#alice", index="GSI1").items] == ["RUN#r1"]
    assert len(table.query("MEMREV#alice").items) == 3


def test_a_file_with_whole_indexes_gets_sparse_ones_that_queries_still_use(tmp_path: Path) -> None:
    path = tmp_path / "mneme.sqlite3"
    SqliteItemTable(path, "main", MAIN_SCHEMA).put_many([ON_GSI1, *OFF_GSI1])
    with sqlite3.connect(path) as db:  # the file as the previous version left it
        db.execute('DROP INDEX "main_ix0"')
        db.execute(WHOLE_INDEX)
    assert _entries(path, "main_ix0") == 4
    table = SqliteItemTable(path, "main", MAIN_SCHEMA)
    assert _entries(path, "main_ix0") == 1
    assert "USING" in _plan(path) and "INDEX main_ix0" in _plan(path)
    assert [item["PK"] for item in table.query("USER#alice", index="GSI1").items] == ["RUN#r1"]
