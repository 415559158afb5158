"""The run items of the main table: their keys, the unfinished-run index's shards, the run and request items."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from mneme.adapters.dynamo.items import PK, SK, Item
from mneme.adapters.dynamo.run_list import root_listing
from mneme.adapters.dynamo.spill import blob_text
from mneme.adapters.dynamo.ttl import stamp
from mneme.models import Run

RUN_SK = "RUN"
EVENT_PREFIX = "EVT#"
REQUEST_PREFIX = "REQ#"
CHECKPOINT_SK = "CHECKPOINT"
OUTBOX_SK = "OUTBOX"
MARK_PREFIX = "MARK#"
OUTBOX_INDEX_PK = "OUTBOX"
ACTIVE_INDEX_PREFIX = "ACTIVE#"
ACTIVE_SHARDS = 4
#: DynamoDB transactions: at most 100 items and 4 MB
MAX_TRANSACTION = 100
MAX_TRANSACTION_CHARS = 3_500_000

REQUEST_HEAD = re.compile(r"^REQ#\d{6}$")
#: items read per query while iterating lazily (a request head and its chunks may span pages)
READ_PAGE = 25


def run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def event_sk(seq: int) -> str:
    return f"{EVENT_PREFIX}{seq:08d}"


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
