"""Atomic counters over the main table: a run tree's budget ledger and the per-user run-start rate limit.

Both are one item updated with :meth:`~mneme.adapters.dynamo.items.ItemTable.increment` (DynamoDB: one UpdateItem
``ADD`` with a condition), so concurrent writers — the parallel children of a tree, a user's parallel
requests — can never overspend together:

================================= ================ ==========================================================
``PK``                            ``SK``           item
================================= ================ ==========================================================
``RUN#<root_run_id>``             ``TREE``         ``runs``, ``model_calls``, ``tokens``, ``active``, ``started_at``
``RATE#<user_id>``                ``RUNS#<epoch>`` ``count`` of runs started in the minute from ``epoch``; TTL
================================= ================ ==========================================================
"""

from __future__ import annotations

import math
from datetime import datetime

from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, query_all
from mneme.adapters.dynamo.run_items import run_pk
from mneme.adapters.dynamo.ttl import Retention, expiry, stamp
from mneme.errors import Conflict
from mneme.models.budget import TreeUsage
from mneme.ports.runs import Reservation

TREE_SK = "TREE"
_COUNTERS = ("runs", "model_calls", "tokens", "active")


def _usage(item: Item) -> TreeUsage:
    return TreeUsage(
        runs=int(item.get("runs") or 0),
        model_calls=int(item.get("model_calls") or 0),
        tokens=int(item.get("tokens") or 0),
        active=int(item.get("active") or 0),
        started_at=datetime.fromisoformat(str(item["started_at"])),
    )


class ItemTreeLedger:
    def __init__(self, table: ItemTable, retention: Retention | None = None) -> None:
        self._table = table
        self._retention = retention or Retention()

    def open(self, root_run_id: str, usage: TreeUsage) -> None:
        item: Item = {
            PK: run_pk(root_run_id),
            SK: TREE_SK,
            **{name: getattr(usage, name) for name in _COUNTERS},
            "started_at": usage.started_at.isoformat(),
        }
        try:
            self._table.put(stamp(item, expiry(usage.started_at, self._retention.runs_days)), condition="not_exists")
        except Conflict:
            return  # opened by an earlier attempt of the same step

    def read(self, root_run_id: str) -> TreeUsage | None:
        item = self._table.get(run_pk(root_run_id), TREE_SK)
        return _usage(item) if item is not None else None

    def reserve_run(self, root_run_id: str, *, max_runs: int, max_active: int) -> Reservation:
        try:
            item = self._table.increment(
                run_pk(root_run_id),
                TREE_SK,
                {"runs": 1, "active": 1},
                limits={"runs": max_runs, "active": max_active},
                must_exist=True,
            )
        except Conflict:
            usage = self.read(root_run_id)
            refused_by = "max_runs" if usage is None or usage.runs >= max_runs else "max_concurrent"
            return Reservation(False, usage, refused_by)
        return Reservation(True, _usage(item))

    def release_run(self, root_run_id: str) -> None:
        try:
            self._table.increment(run_pk(root_run_id), TREE_SK, {"active": -1}, must_exist=True)
        except Conflict:
            return  # the tree's counters expired with their run

    def charge(self, root_run_id: str, *, model_calls: int, tokens: int) -> None:
        deltas = {"model_calls": model_calls, "tokens": tokens}
        try:
            self._table.increment(run_pk(root_run_id), TREE_SK, deltas, must_exist=True)
        except Conflict:
            return  # the tree's counters expired with their run


class ItemRateLimiter:
    """A fixed window per user and minute (``RATE#<user>``, ``RUNS#<window start>``), expired by TTL."""

    def __init__(self, table: ItemTable) -> None:
        self._table = table

    def hit(self, user_id: str, *, now: datetime, limit: int, window_seconds: int = 60) -> int | None:
        epoch = now.timestamp()
        start = _window(now, window_seconds)
        try:
            self._table.increment(
                _rate_pk(user_id),
                f"RUNS#{start}",
                {"count": 1},
                limits={"count": limit},
                values={"expires_at": start + 2 * window_seconds},
            )
        except Conflict:
            return max(1, math.ceil(start + window_seconds - epoch))
        return None

    def refund(self, user_id: str, *, now: datetime, window_seconds: int = 60) -> None:
        start = _window(now, window_seconds)
        try:
            self._table.increment(_rate_pk(user_id), f"RUNS#{start}", {"count": -1}, must_exist=True)
        except Conflict:
            return  # the window expired meanwhile

    def erase_owned(self, user_id: str) -> int:
        keys = [(str(i[PK]), str(i[SK])) for i in query_all(self._table, _rate_pk(user_id))]
        self._table.delete_many(keys)
        return len(keys)


def _rate_pk(user_id: str) -> str:
    return f"RATE#{user_id}"


def _window(now: datetime, window_seconds: int) -> int:
    return int(now.timestamp() // window_seconds) * window_seconds
