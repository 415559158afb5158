"""A user's root runs, newest first (``GET /v1/runs``), from the main table's second index.

Key design: the item of a **root** run (``PK = RUN#<run_id>``, ``SK = RUN``) also carries

* ``GSI2PK = RUNS#<user_id>`` and ``GSI2SK = <created_at, UTC, fixed width>#<run_id>``: one index partition
  per user, in creation order, so a page is one Query (newest first) and a time window is its key
  condition (``BETWEEN``) — never a scan;
* ``agent_id`` and ``chat_id`` beside ``status``: the filters, applied to the items the query reads.

Sub-runs carry none of it (the index is sparse): a tree is listed once, by its root, whose item holds the
tree's status (a root ends after every run below it) and ``tree_usage`` (its cost included). The root item is
rewritten whole at each step, so the index (projection ALL) always shows the run as last committed —
eventually consistent on DynamoDB, like every index read.

With filters a query page may hold few matches: further pages are read until ``limit`` runs are found, at
most :data:`MAX_ROUNDS` queries per request; a page cut short there still carries a cursor.
"""

from __future__ import annotations

from datetime import UTC, datetime

from mneme.adapters.dynamo.cursors import decode_cursor, encode_cursor
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, key_of
from mneme.adapters.dynamo.run_texts import run_of
from mneme.adapters.dynamo.ttl import expired
from mneme.models import Run
from mneme.ports.runs import RunFilter, RunPage

RUNS_INDEX = "GSI2"
RUNS_INDEX_PK, RUNS_INDEX_SK = "GSI2PK", "GSI2SK"
#: query rounds per request with filters (each reads up to ``_FILTERED_READ`` items)
MAX_ROUNDS = 10
_FILTERED_READ = 100


def runs_pk(user_id: str) -> str:
    return f"RUNS#{user_id}"


def sort_time(at: datetime) -> str:
    """A fixed-width UTC time, so the index's byte order is time order whatever the stored offset."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def root_listing(run: Run) -> Item:
    """The attributes that list a root run on the index (none for a sub-run)."""
    if run.parent_run_id is not None or run.depth > 0:
        return {}
    item: Item = {
        RUNS_INDEX_PK: runs_pk(run.user_id),
        RUNS_INDEX_SK: f"{sort_time(run.created_at)}#{run.run_id}",
        "agent_id": run.agent_id,
    }
    if run.chat_id:
        item["chat_id"] = run.chat_id
    return item


def stored_listing(item: Item) -> Item:
    """The listing attributes a stored run item lacks (a run written before the index existed; none for a
    sub-run or an item that has them)."""
    if RUNS_INDEX_PK in item or "data" not in item:
        return {}
    return root_listing(Run.model_validate_json(item["data"]))


def _cursor_start(cursor: str, user_id: str) -> dict[str, str]:
    """The start key of a cursor; InvalidInput when it is malformed, tampered or another user's."""
    return decode_cursor(
        cursor,
        (PK, SK, RUNS_INDEX_PK, RUNS_INDEX_SK),
        lambda key: key[RUNS_INDEX_PK] == runs_pk(user_id) and key[PK].startswith("RUN#") and key[SK] == "RUN",
    )


def _window(wanted: RunFilter) -> tuple[str, str] | None:
    if wanted.since is None and wanted.until is None:
        return None
    low = sort_time(wanted.since) if wanted.since else "0"
    high = f"{sort_time(wanted.until)}#~" if wanted.until else "~"
    return low, high


def list_roots(table: ItemTable, user_id: str, wanted: RunFilter, *, now: datetime) -> RunPage:
    """One page of the user's root runs matching ``wanted``, newest first."""
    start = _cursor_start(wanted.cursor, user_id) if wanted.cursor else None
    equal = {"status": wanted.status, "agent_id": wanted.agent_id, "chat_id": wanted.chat_id}
    filters: dict[str, str | int] = {name: value for name, value in equal.items() if value is not None}
    window = _window(wanted)
    found: list[Item] = []
    for _round in range(MAX_ROUNDS):
        remaining = wanted.limit - len(found)
        page = table.query(
            runs_pk(user_id),
            index=RUNS_INDEX,
            forward=False,
            limit=max(remaining + 1, _FILTERED_READ) if filters else remaining + 1,  # one more: is there a next?
            start_key=start,
            filters=filters or None,
            sk_range=window,
        )
        for position, item in enumerate(page.items):
            if expired(item, now):
                continue
            found.append(item)
            if len(found) == wanted.limit:
                more = position + 1 < len(page.items) or page.last_key is not None
                return _page(table, found, key_of(item, table.schema, RUNS_INDEX) if more else None)
        if page.last_key is None:
            return _page(table, found, None)
        start = page.last_key
    return _page(table, found, start)


def _page(table: ItemTable, items: list[Item], last_key: dict[str, str] | None) -> RunPage:
    runs = [run_of(table, i) for i in items]
    return RunPage(runs=runs, cursor=encode_cursor(last_key) if last_key else None)
