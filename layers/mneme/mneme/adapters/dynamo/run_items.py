"""The run items of the main table: their keys, the unfinished-run index's shards, the run and request items."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from mneme.adapters.dynamo.item_parts import EVENT_PARTS, split
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, query_all
from mneme.adapters.dynamo.run_list import root_listing
from mneme.adapters.dynamo.run_texts import RUN_DATA_BYTES, TEXTS_PREFIX, texts_sk, version_of
from mneme.adapters.dynamo.spill import blob_text, encode, write_blob
from mneme.adapters.dynamo.ttl import stamp
from mneme.models import Run, RunEvent

RUN_SK = "RUN"
EVENT_PREFIX = "EVT#"
REQUEST_PREFIX = "REQ#"
CHECKPOINT_SK = "CHECKPOINT"
OUTBOX_SK = "OUTBOX"
MARK_PREFIX = "MARK#"
OUTBOX_INDEX_PK = "OUTBOX"
ACTIVE_INDEX_PREFIX = "ACTIVE#"
ACTIVE_SHARDS = 4
#: DynamoDB transactions: at most 100 items and 4 MB (counted in UTF-8 bytes, as DynamoDB counts: in
#: characters, a step's events of CJK text passed it at a third of the count)
MAX_TRANSACTION = 100
MAX_TRANSACTION_BYTES = 3_500_000

REQUEST_HEAD = re.compile(r"^REQ#\d{6}$")
#: items read per query while iterating lazily (a request head and its chunks may span pages)
READ_PAGE = 25


def run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def event_sk(seq: int) -> str:
    return f"{EVENT_PREFIX}{seq:08d}"


def event_items(table: ItemTable, pk: str, events: Sequence[RunEvent], expires_at: int | None) -> list[Item]:
    """The events' items; the parts of one too large for an item (:mod:`mneme.adapters.dynamo.item_parts`: an
    approval request of long tool arguments) are written now, before the items."""
    items, parts = [], []
    for event in events:
        content, more = split(pk, EVENT_PARTS, f"{event.seq:08d}", event.model_dump_json(), expires_at)
        items.append(stamp({PK: pk, SK: event_sk(event.seq), **content}, expires_at))
        parts += more
    if parts:
        table.put_many(parts)
    return items


def request_sk(seq: int) -> str:
    return f"{REQUEST_PREFIX}{seq:06d}"


def run_item(run: Run, expires_at: int | None) -> Item:
    item: Item = {
        PK: run_pk(run.run_id),
        SK: RUN_SK,
        "version": run.version,
        "user_id": run.user_id,
        "status": run.status.value,
        "root_run_id": run.root_run_id,
        "data": run.model_dump_json(),
        **root_listing(run),  # a root run is listed by GET /v1/runs (mneme.adapters.dynamo.run_list)
    }
    if run.parent_run_id:
        item["parent_run_id"] = run.parent_run_id
    if not run.status.finished:
        item["GSI1PK"] = active_shard(run.run_id)
        item["GSI1SK"] = f"{run.created_at.isoformat()}#{run.run_id}"
    return stamp(item, expires_at)


def active_shard(run_id: str) -> str:
    """The index partition that lists a run while it is unfinished."""
    return f"{ACTIVE_INDEX_PREFIX}{int(hashlib.sha256(run_id.encode()).hexdigest()[:8], 16) % ACTIVE_SHARDS}"


def request_of(head: Item, parts: Sequence[Item]) -> tuple[int, dict[str, Any]]:
    seq = int(str(head[SK]).removeprefix(REQUEST_PREFIX))
    request: dict[str, Any] = json.loads(blob_text(head, parts))
    return seq, request


def stored_item(table: ItemTable, run: Run, expires_at: int | None, *, chunk: int) -> Item:
    """The run's item; when it would be too large, its input and output are written beside it first
    (:mod:`mneme.adapters.dynamo.run_texts`)."""
    item = run_item(run, expires_at)
    if len(str(item["data"]).encode()) <= RUN_DATA_BYTES:
        return item
    sk = texts_sk(run.version, uuid.uuid4().hex[:12])
    texts = encode({"input": run.input, "output": run.output})
    write_blob(table, run_pk(run.run_id), sk, texts, chunk=chunk, expires_at=expires_at)
    item = run_item(run.model_copy(update={"input": "", "output": None}), expires_at)
    item["texts"] = sk
    return item


def drop_before(table: ItemTable, item: Item) -> None:
    """Delete the texts of the versions before the stored ``item``'s (a later version's, written by a step about to
    commit, stays)."""
    if "texts" not in item:
        return
    pk, version = str(item[PK]), int(item["version"])
    stale = [i for i in query_all(table, pk, sk_prefix=TEXTS_PREFIX) if version_of(str(i[SK])) < version]
    table.delete_many([(pk, str(i[SK])) for i in stale])
