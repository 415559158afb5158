"""A user's runs as a whole, for exports and erasures (the run store's owner-scoped listing).

The runs of a user are found without a scan: the user's run index (``USER_RUNS#<user_id>``, written when a
run is created, see :mod:`mneme.adapters.dynamo.run_store`) lists them; run ids found elsewhere (the user's audit
records, unfinished runs) are added by the caller for runs created before the index existed. A run is the
user's when its run item says so; an index entry whose run item is gone (expired) still names the user's
leftover items. Each run partition is read with one paged Query: the run item, its events, its recorded
requests and checkpoint (assembled from their chunks), its approval marks and its outbox.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from mneme.adapters.dynamo.item_parts import EVENT_PARTS, joined
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, query_all
from mneme.adapters.dynamo.run_texts import TEXTS_PREFIX, texts_of
from mneme.adapters.dynamo.spill import blob_text
from mneme.adapters.dynamo.ttl import expired, stamp
from mneme.models import Run
from mneme.ports.common import OwnedItem

RUN_SK = "RUN"
_HEADS = (("EVT#", "event"), ("REQ#", "request"), ("CHECKPOINT", "checkpoint"), ("MARK#", "mark"), ("OUTBOX", "outbox"))


def _user_runs_pk(user_id: str) -> str:
    return f"USER_RUNS#{user_id}"


def index_item(run: Run, expires_at: int | None) -> Item:
    """The user's run index entry of ``run``: it expires with the run item."""
    item: Item = {
        PK: _user_runs_pk(run.user_id),
        SK: f"RUN#{run.run_id}",
        "run_id": run.run_id,
        "user_id": run.user_id,
        "created_at": run.created_at.isoformat(),
    }
    return stamp(item, expires_at)


def _run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def key_of(item: Item) -> str:
    return f"{item[PK]}|{item[SK]}"


def _kind(sk: str) -> str | None:
    """The kind of a run partition's item; None for a chunk of a spilled request or checkpoint, and for a run's
    texts stored beside it (they are the run's: :func:`_data`)."""
    if sk == RUN_SK:
        return "run"
    if sk.startswith((TEXTS_PREFIX, EVENT_PARTS)):
        return None
    for prefix, kind in _HEADS:
        if sk.startswith(prefix):
            if (kind == "request" and sk.count("#") > 1) or (kind == "checkpoint" and sk != "CHECKPOINT"):
                return None
            if kind == "mark":
                return "approval" if sk.startswith("MARK#decision#") else "task_token"
            return kind
    return "run_item"


def _data(table: ItemTable, kind: str, item: Item, partition: list[Item]) -> Any:
    if kind in ("request", "checkpoint"):
        return json.loads(blob_text(item, partition))
    if kind == "event":
        return json.loads(joined(table, item, EVENT_PARTS, partition))
    if kind == "run_item":
        return {k: v for k, v in item.items() if k not in (PK, SK)}
    data = json.loads(str(item["data"]))
    texts = texts_of(table, item, partition) if kind == "run" else None  # a run too large for its item
    return data if texts is None else {**data, **texts}


class OwnedRuns:
    """The owner-scoped listing and erasure over the run partitions of one table."""

    def __init__(self, table: ItemTable) -> None:
        self._table = table

    def _partitions(self, user_id: str, run_ids: Sequence[str]) -> Iterator[tuple[str, Item | None, list[Item]]]:
        """``(run_id, index entry, partition items)`` of each run of the user."""
        index = {str(i["run_id"]): i for i in query_all(self._table, _user_runs_pk(user_id))}
        for run_id in dict.fromkeys([*index, *run_ids]):
            items = query_all(self._table, _run_pk(run_id))
            run = next((i for i in items if i[SK] == RUN_SK), None)
            if (run.get("user_id") if run is not None else None) == user_id or (run is None and run_id in index):
                yield run_id, index.get(run_id), items

    def iter_owned(
        self, user_id: str, run_ids: Sequence[str], *, now: datetime, include_expired: bool
    ) -> Iterator[OwnedItem]:
        for _run_id, entry, items in self._partitions(user_id, run_ids):
            run = next((i for i in items if i[SK] == RUN_SK), None)
            if not include_expired and (run is None or expired(run, now)):
                continue  # an expired run hides everything under it, as every read does
            if entry is not None and (include_expired or not expired(entry, now)):
                yield OwnedItem(
                    "run_index", key_of(entry), {"run_id": entry["run_id"], "created_at": entry["created_at"]}
                )
            for item in items:
                kind = _kind(str(item[SK]))
                if kind is not None and (include_expired or not expired(item, now)):
                    yield OwnedItem(kind, key_of(item), _data(self._table, kind, item, items))

    def erase_owned(self, user_id: str, run_ids: Sequence[str]) -> dict[str, int]:
        """Delete each run's items, the run item last, then its index entry (an interrupted erasure is
        resumed by running it again: nothing of a half-deleted run is lost from the listing)."""
        counts: dict[str, int] = {}
        for run_id, entry, items in self._partitions(user_id, run_ids):
            rest = [(str(i[PK]), str(i[SK])) for i in items if i[SK] != RUN_SK]
            self._table.delete_many(rest)
            for item in items:
                kind = _kind(str(item[SK])) or "chunk"
                counts[kind] = counts.get(kind, 0) + 1
            self._table.delete(_run_pk(run_id), RUN_SK)
            if entry is not None:
                self._table.delete(_user_runs_pk(user_id), str(entry[SK]))
                counts["run_index"] = counts.get("run_index", 0) + 1
        stray = query_all(self._table, _user_runs_pk(user_id))  # entries of runs that turned out not to be theirs
        self._table.delete_many([(str(i[PK]), str(i[SK])) for i in stray])
        return counts
