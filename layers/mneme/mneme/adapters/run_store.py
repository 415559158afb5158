"""RunStore over an ItemTable (main table).

One partition per run, ``PK = RUN#<run_id>`` (a run is read by its id alone; the caller checks
ownership through ``run.user_id``):

================================== ==============================================================
``SK``                             item
================================== ==============================================================
``RUN``                            the run (``data`` JSON) with ``version`` for optimistic locking
``EVT#<seq:08d>``                  one event (``data`` JSON)
``REQ#<seq:06d>``                  the exact model request of call ``seq`` (head item)
``REQ#<seq:06d>#<blob>#<n:04d>``   chunk ``n`` of a large request (spill, see below)
``CHECKPOINT``                     the checkpoint state (head item; large states spill the same way)
``MARK#<name>``                     small run-scoped facts written by other parties than the step (the
                                   approval task token, each person's decision), so they never race the
                                   checkpoint
``OUTBOX``                         memory-write jobs the queue refused, kept for the redrive
                                   (``GSI1PK = OUTBOX``: every pending outbox in one query)
================================== ==============================================================

**Unfinished runs.** A run item that is not final carries ``GSI1PK = ACTIVE#<shard>`` (one of
``ACTIVE_SHARDS`` partitions, by a hash of the run id, so no single index partition takes every run's
writes) and ``GSI1SK = <created_at>#<run_id>``; a final run's item has neither (a sparse index). Local
recovery and the sweeper read every unfinished run from these few partitions, never by a scan.

**Spill.** A DynamoDB item holds at most 400 KB. Requests and checkpoints are stored as ASCII JSON text;
text up to ``CHUNK_CHARS`` (300,000 characters = bytes) stays in the head item's ``data``; longer text is
cut into chunk items written first, and the head item (``chunks`` = count, ``blob`` = a fresh id) is
written last, so a reader never sees half a blob. Chunks of a replaced blob are deleted afterwards.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from mneme.adapters.items import PK, SK, AttrEquals, Item, ItemTable, Put, query_all
from mneme.errors import Conflict, NotFound, StoreUnavailable
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
#: the longest text kept in one item; DynamoDB's item limit is 400 KB (keys and names included).
CHUNK_CHARS = 300_000
#: DynamoDB transactions: at most 100 items and 4 MB
MAX_TRANSACTION = 100
MAX_TRANSACTION_CHARS = 3_500_000

_REQUEST_HEAD = re.compile(r"^REQ#\d{6}$")


def run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def event_sk(seq: int) -> str:
    return f"{EVENT_PREFIX}{seq:08d}"


def request_sk(seq: int) -> str:
    return f"{REQUEST_PREFIX}{seq:06d}"


def _run_item(run: Run) -> Item:
    item: Item = {
        PK: run_pk(run.run_id),
        SK: RUN_SK,
        "version": run.version,
        "user_id": run.user_id,
        "status": run.status.value,
        "root_run_id": run.root_run_id,
        "data": run.model_dump_json(),
    }
    if run.parent_run_id:
        item["parent_run_id"] = run.parent_run_id
    if not run.status.finished:
        item["GSI1PK"] = active_shard(run.run_id)
        item["GSI1SK"] = f"{run.created_at.isoformat()}#{run.run_id}"
    return item


def active_shard(run_id: str) -> str:
    """The index partition that lists a run while it is unfinished."""
    return f"{ACTIVE_INDEX_PREFIX}{int(hashlib.sha256(run_id.encode()).hexdigest()[:8], 16) % ACTIVE_SHARDS}"


def _encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))  # ASCII: characters == bytes


def _blob_parts(head: Item, items: Sequence[Item]) -> str:
    """The text of a blob from its head item and the chunk items under it."""
    chunks = int(head.get("chunks", 0))
    if not chunks:
        return str(head["data"])
    prefix = f"{head[SK]}#{head['blob']}#"
    parts = sorted((i for i in items if str(i[SK]).startswith(prefix)), key=lambda i: str(i[SK]))
    if len(parts) != chunks:
        raise StoreUnavailable(f"stored blob {head[SK]} is incomplete: {len(parts)} of {chunks} chunks")
    return "".join(str(p["data"]) for p in parts)


class ItemRunStore:
    def __init__(self, table: ItemTable, *, chunk_chars: int = CHUNK_CHARS) -> None:
        self._table = table
        self._chunk = chunk_chars

    # ------------------------------------------------------------------------------------- runs
    def create_run(self, run: Run) -> None:
        self._table.put(_run_item(run), condition="not_exists")

    def get_run(self, run_id: str) -> Run | None:
        item = self._table.get(run_pk(run_id), RUN_SK)
        if item is None:
            return None
        return Run.model_validate_json(item["data"]).model_copy(update={"version": int(item["version"])})

    def update_run(self, run: Run) -> Run:
        updated = run.model_copy(update={"version": run.version + 1})
        try:
            self._table.put(_run_item(updated), condition=AttrEquals("version", run.version))
        except Conflict:
            if self._table.get(run_pk(run.run_id), RUN_SK) is None:
                raise NotFound(f"run {run.run_id!r} not found", field="run_id") from None
            raise Conflict(f"run {run.run_id!r} changed since version {run.version}") from None
        return updated

    def commit(
        self,
        run: Run,
        *,
        create: bool = False,
        events: Sequence[RunEvent] = (),
        requests: Sequence[tuple[int, dict[str, Any]]] = (),
        checkpoint: dict[str, Any] | None = None,
    ) -> Run:
        """The end of a step in one round trip: the run (created, or updated on its version), its new
        events, recorded requests and checkpoint, as one transaction. Blobs too large for one item are
        chunked first; what does not fit one transaction is written before it, the run item always last."""
        pk = run_pk(run.run_id)
        updated = run if create else run.model_copy(update={"version": run.version + 1})
        items: list[Item] = [{PK: pk, SK: event_sk(e.seq), "data": e.model_dump_json()} for e in events]
        blobs = [(request_sk(seq), _encode(request)) for seq, request in requests]
        if checkpoint is not None:
            blobs.append((CHECKPOINT_SK, _encode(checkpoint)))
        for sk, text in blobs:
            if len(text) > self._chunk:
                self._write_blob(pk, sk, text)
            else:
                items.append({PK: pk, SK: sk, "chunks": 0, "data": text})
        run_put = Put(_run_item(updated), "not_exists" if create else AttrEquals("version", run.version))
        size = sum(len(str(item.get("data", ""))) for item in items)
        if len(items) >= MAX_TRANSACTION or size > MAX_TRANSACTION_CHARS:
            self._table.put_many(items)
            items = []
        try:
            self._table.transact([*(Put(item) for item in items), run_put])
        except Conflict:
            exists = self._table.get(pk, RUN_SK) is not None
            if create or exists:
                raise Conflict(f"run {run.run_id!r} {'exists' if create else 'changed'}") from None
            raise NotFound(f"run {run.run_id!r} not found", field="run_id") from None
        return updated

    def list_unfinished(self) -> list[Run]:
        """Every run that is not final (queued, running, waiting), oldest first, from the sparse index.

        The index is eventually consistent on DynamoDB: a run finished a moment ago may still be listed
        (callers re-read it with :meth:`get_run` before acting on it)."""
        items = [
            item
            for shard in range(ACTIVE_SHARDS)
            for item in query_all(self._table, f"{ACTIVE_INDEX_PREFIX}{shard}", index="GSI1")
        ]
        runs = [Run.model_validate_json(i["data"]).model_copy(update={"version": int(i["version"])}) for i in items]
        return sorted((run for run in runs if not run.status.finished), key=lambda run: (run.created_at, run.run_id))

    # ------------------------------------------------------------------------------------- events
    def append_events(self, run_id: str, events: Sequence[RunEvent]) -> None:
        """Events are keyed by their ``seq``: a retried append rewrites the same items."""
        pk = run_pk(run_id)
        self._table.put_many([{PK: pk, SK: event_sk(e.seq), "data": e.model_dump_json()} for e in events])

    def list_events(self, run_id: str) -> list[RunEvent]:
        items = query_all(self._table, run_pk(run_id), sk_prefix=EVENT_PREFIX)
        return [RunEvent.model_validate_json(i["data"]) for i in items]

    # ------------------------------------------------------------------------------------- requests
    def put_request(self, run_id: str, seq: int, request: dict[str, Any]) -> None:
        self._write_blob(run_pk(run_id), request_sk(seq), _encode(request))

    def list_requests(self, run_id: str) -> list[dict[str, Any]]:
        items = query_all(self._table, run_pk(run_id), sk_prefix=REQUEST_PREFIX)
        heads = [i for i in items if _REQUEST_HEAD.match(str(i[SK]))]
        return [json.loads(_blob_parts(head, items)) for head in heads]

    # ------------------------------------------------------------------------------------- checkpoint
    def save_checkpoint(self, run_id: str, state: dict[str, Any]) -> None:
        self._write_blob(run_pk(run_id), CHECKPOINT_SK, _encode(state))

    def load_checkpoint(self, run_id: str) -> dict[str, Any] | None:
        items = query_all(self._table, run_pk(run_id), sk_prefix=CHECKPOINT_SK)
        head = next((i for i in items if i[SK] == CHECKPOINT_SK), None)
        if head is None:
            return None
        state: dict[str, Any] = json.loads(_blob_parts(head, items))
        return state

    def put_mark(self, run_id: str, name: str, value: dict[str, Any], *, only_new: bool = False) -> bool:
        item = {PK: run_pk(run_id), SK: f"{MARK_PREFIX}{name}", "data": _encode(value)}
        try:
            self._table.put(item, condition="not_exists" if only_new else None)
        except Conflict:
            return False
        return True

    def list_marks(self, run_id: str, prefix: str = "") -> dict[str, dict[str, Any]]:
        items = query_all(self._table, run_pk(run_id), sk_prefix=f"{MARK_PREFIX}{prefix}")
        return {str(item[SK]).removeprefix(MARK_PREFIX): json.loads(str(item["data"])) for item in items}

    # ------------------------------------------------------------------------------------- spill
    def put_outbox(self, run_id: str, jobs: Sequence[dict[str, Any]], *, at: str) -> None:
        self._table.put(
            {
                PK: run_pk(run_id),
                SK: OUTBOX_SK,
                "GSI1PK": OUTBOX_INDEX_PK,
                "GSI1SK": f"{at}#{run_id}",
                "data": _encode(list(jobs)),
            },
            condition=None,
        )

    def list_outbox(self, limit: int = 100) -> list[tuple[str, list[dict[str, Any]]]]:
        page = self._table.query(OUTBOX_INDEX_PK, index="GSI1", limit=limit)
        return [(str(item[PK]).removeprefix("RUN#"), json.loads(str(item["data"]))) for item in page.items]

    def delete_outbox(self, run_id: str) -> None:
        self._table.delete(run_pk(run_id), OUTBOX_SK)

    def _write_blob(self, pk: str, sk: str, text: str) -> None:
        previous = self._table.get(pk, sk)
        if len(text) <= self._chunk:
            self._table.put({PK: pk, SK: sk, "chunks": 0, "data": text})
        else:
            blob = uuid.uuid4().hex[:12]
            parts = [text[i : i + self._chunk] for i in range(0, len(text), self._chunk)]
            self._table.put_many([{PK: pk, SK: f"{sk}#{blob}#{n:04d}", "data": part} for n, part in enumerate(parts)])
            self._table.put({PK: pk, SK: sk, "chunks": len(parts), "blob": blob})
        if previous is not None and previous.get("chunks"):
            stale = f"{sk}#{previous['blob']}#"
            self._table.delete_many([(pk, f"{stale}{n:04d}") for n in range(int(previous["chunks"]))])
