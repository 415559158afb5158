"""Runs stored before ``GET /v1/runs`` existed are listed too (issue 33.3): once per data folder, at the start of
``make run``, every root run item the runs index (GSI2) does not hold yet gets its listing attributes — the failed
runs a user could not find before included. A marker item records that it ran; later runs carry the attributes
from their first write. (A deployed table needs the same one-off update of its ``RUN`` items.)"""

from __future__ import annotations

from mneme.adapters.dynamo.items import PK, SK
from mneme.adapters.dynamo.run_list import RUNS_INDEX, stored_listing
from mneme.errors import Conflict
from mneme_local.sqlite_items import SqliteItemTable

MARK_PK, MARK_SK = "MIGRATION", "run-list"


def list_earlier_runs(table: SqliteItemTable) -> int:
    """Give the earlier root runs their listing attributes (the first time only); the number updated."""
    if table.get(MARK_PK, MARK_SK) is not None:
        return 0
    updated = 0
    for item in table.items_off_index(RUNS_INDEX, "RUN"):
        values = stored_listing(item)
        if not values:
            continue  # a sub-run: listed through its root
        try:
            table.update(str(item[PK]), str(item[SK]), values, condition="exists")
        except Conflict:
            continue  # gone meanwhile
        updated += 1
    table.put({PK: MARK_PK, SK: MARK_SK, "done": True})
    return updated
