"""RunStore over an ItemTable (main table).

One partition per run, ``PK = RUN#<run_id>`` (a run is read by its id alone; the caller checks
ownership through ``run.user_id``):

================================== ==============================================================
``SK``                             item
================================== ==============================================================
``RUN``                            the run (``data`` JSON) with ``version`` for optimistic locking
``EVT#<seq:08d>``                  one event (``data`` JSON; a large one's in ``EVTPART#`` items, ``item_parts``)
``REQ#<seq:06d>``                  the exact model request of call ``seq`` (head item)
``REQ#<seq:06d>#<blob>#<n:04d>``   chunk ``n`` of a large request (spill, see below)
``CHECKPOINT``                     the checkpoint state (head item; large states spill the same way)
``RUNTEXT#<version>#<nonce>``      the input and output of a run too large for its item (``run_texts``)
``MARK#<name>``                     small run-scoped facts written by other parties than the step (the
                                   approval task token, each person's decision), so they never race the
                                   checkpoint
``OUTBOX``                         memory-write jobs the queue refused, kept for the redrive
                                   (``GSI1PK = OUTBOX``: every pending outbox in one query)
================================== ==============================================================

**The user's runs.** Creating a run also writes an index item ``PK = USER_RUNS#<user_id>``, ``SK = RUN#<run_id>``
(in the create's own transaction, or just before a lone create), with the run's TTL: an export or an erasure
finds every run of a user with one Query, never a scan (:mod:`mneme.adapters.dynamo.run_owned`).

**Unfinished runs.** A run item that is not final carries ``GSI1PK = ACTIVE#<shard>`` (one of
``ACTIVE_SHARDS`` partitions, by a hash of the run id, so no single index partition takes every run's
writes) and ``GSI1SK = <created_at>#<run_id>``; a final run's item has neither (a sparse index). Local
recovery and the sweeper read every unfinished run from these few partitions, never by a scan.

**Retention** (:mod:`mneme.adapters.dynamo.ttl`): with a retention set, every item but the outbox carries the TTL
attribute — the run item ``retention_days_runs`` after the run's creation, the items under it from when they
are written (recorded requests by ``retention_days_requests`` when that is shorter) — and reads skip expired
items. Reading events and requests is lazy (:meth:`ItemRunStore.iter_events`, ``iter_requests``): a page
of a run with megabytes of recorded requests reads only what the page holds, plus one entry to know
whether more follow.

**Spill.** Requests and checkpoints larger than one item holds are cut into chunk items under their head item
(:mod:`mneme.adapters.dynamo.spill`), and so are the texts of a run too large for one."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from mneme.adapters.dynamo.item_parts import EVENT_PARTS, joined
from mneme.adapters.dynamo.item_size import item_bytes
from mneme.adapters.dynamo.items import PK, SK, AttrEquals, Item, ItemTable, Put, query_all
from mneme.adapters.dynamo.run_items import (
    ACTIVE_INDEX_PREFIX,
    ACTIVE_SHARDS,
    CHECKPOINT_SK,
    EVENT_PREFIX,
    MARK_PREFIX,
    MAX_TRANSACTION,
    MAX_TRANSACTION_BYTES,
    OUTBOX_INDEX_PK,
    OUTBOX_SK,
    READ_PAGE,
    REQUEST_HEAD,
    REQUEST_PREFIX,
    RUN_SK,
    drop_before,
    event_items,
    event_sk,
    request_of,
    request_sk,
    run_pk,
    stored_item,
)
from mneme.adapters.dynamo.run_list import list_roots
from mneme.adapters.dynamo.run_owned import OwnedRuns, index_item
from mneme.adapters.dynamo.run_texts import run_of
from mneme.adapters.dynamo.spill import CHUNK_CHARS, blob_text, encode, write_blob
from mneme.adapters.dynamo.ttl import Retention, expired, expiry, stamp
from mneme.clock import SystemClock
from mneme.errors import Conflict, NotFound
from mneme.models import Run, RunEvent
from mneme.ports.common import Clock, OwnedItem
from mneme.ports.runs import RunFilter, RunPage


class ItemRunStore:
    def __init__(
        self,
        table: ItemTable,
        *,
        chunk_chars: int = CHUNK_CHARS,
        retention: Retention | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._table = table
        self._chunk = chunk_chars
        self._retention = retention or Retention()
        self._clock = clock or SystemClock()

    # ------------------------------------------------------------------------------------- expiry
    def _run_expiry(self, run: Run) -> int | None:
        return expiry(run.created_at, self._retention.runs_days)

    def _part_expiry(self) -> int | None:
        """Events, checkpoint, marks: stamped when written (never before their run's creation)."""
        return expiry(self._clock.now(), self._retention.runs_days)

    def _request_expiry(self) -> int | None:
        return expiry(self._clock.now(), self._retention.effective_requests_days)

    def _live(self, items: Sequence[Item]) -> list[Item]:
        now = self._clock.now()
        return [item for item in items if not expired(item, now)]

    # ------------------------------------------------------------------------------------- runs
    def create_run(self, run: Run) -> None:
        self._table.put(index_item(run, self._run_expiry(run)))  # first: never unlisted (a stray entry is skipped)
        self._table.put(self._stored(run), condition="not_exists")

    def get_run(self, run_id: str) -> Run | None:
        item = self._table.get(run_pk(run_id), RUN_SK)
        if item is None or expired(item, self._clock.now()):
            return None
        return run_of(self._table, item)

    def update_run(self, run: Run) -> Run:
        updated = run.model_copy(update={"version": run.version + 1})
        item = self._stored(updated)
        try:
            self._table.put(item, condition=AttrEquals("version", run.version))
        except Conflict:
            if self._table.get(run_pk(run.run_id), RUN_SK) is None:
                raise NotFound(f"run {run.run_id!r} not found", field="run_id") from None
            raise Conflict(f"run {run.run_id!r} changed since version {run.version}") from None
        drop_before(self._table, item)
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
        part, request_expiry = self._part_expiry(), self._request_expiry()
        items: list[Item] = event_items(self._table, pk, events, part)
        if create:
            items.append(index_item(run, self._run_expiry(run)))
        blobs = [(request_sk(seq), encode(request), request_expiry) for seq, request in requests]
        if checkpoint is not None:
            blobs.append((CHECKPOINT_SK, encode(checkpoint), part))
        for sk, text, expires_at in blobs:
            if len(text) > self._chunk:
                self._write_blob(pk, sk, text, expires_at)
            else:
                items.append(stamp({PK: pk, SK: sk, "chunks": 0, "data": text}, expires_at))
        run_put = Put(self._stored(updated), "not_exists" if create else AttrEquals("version", run.version))
        if len(items) >= MAX_TRANSACTION or sum(map(item_bytes, items)) > MAX_TRANSACTION_BYTES:
            self._table.put_many(items)
            items = []
        try:
            self._table.transact([*(Put(item) for item in items), run_put])
        except Conflict:
            exists = self._table.get(pk, RUN_SK) is not None
            if create or exists:
                raise Conflict(f"run {run.run_id!r} {'exists' if create else 'changed'}") from None
            raise NotFound(f"run {run.run_id!r} not found", field="run_id") from None
        drop_before(self._table, run_put.item)
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
        runs = [run_of(self._table, i) for i in items]
        return sorted((run for run in runs if not run.status.finished), key=lambda run: (run.created_at, run.run_id))

    def list_runs(self, user_id: str, wanted: RunFilter) -> RunPage:
        return list_roots(self._table, user_id, wanted, now=self._clock.now())

    # ------------------------------------------------------------------------------------- events
    def append_events(self, run_id: str, events: Sequence[RunEvent]) -> None:
        """Events are keyed by their ``seq``: a retried append rewrites the same items."""
        pk, part = run_pk(run_id), self._part_expiry()
        self._table.put_many(event_items(self._table, pk, events, part))

    def list_events(self, run_id: str) -> list[RunEvent]:
        return list(self.iter_events(run_id))

    def iter_events(self, run_id: str, *, after: int | None = None) -> Iterator[RunEvent]:
        """The run's events with ``seq`` greater than ``after``, in order, read as they are consumed."""
        start = event_sk(after) if after is not None else None
        for item in self._read(run_pk(run_id), EVENT_PREFIX, start):
            yield RunEvent.model_validate_json(joined(self._table, item, EVENT_PARTS))

    # ------------------------------------------------------------------------------------- requests
    def put_request(self, run_id: str, seq: int, request: dict[str, Any]) -> None:
        self._write_blob(run_pk(run_id), request_sk(seq), encode(request), self._request_expiry())

    def list_requests(self, run_id: str) -> list[dict[str, Any]]:
        return [request for _seq, request in self.iter_requests(run_id)]

    def iter_requests(self, run_id: str, *, after: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(seq, request)`` of the recorded requests with ``seq`` greater than ``after``, in order, each
        assembled from its head and chunks as it is consumed."""
        start = f"{request_sk(after)}#~" if after is not None else None  # past the chunks of ``after``
        head: Item | None = None
        parts: list[Item] = []
        for item in self._read(run_pk(run_id), REQUEST_PREFIX, start):
            if REQUEST_HEAD.match(str(item[SK])):
                if head is not None:
                    yield request_of(head, parts)
                head, parts = item, []
            elif head is not None:
                parts.append(item)
        if head is not None:
            yield request_of(head, parts)

    def _read(self, pk: str, prefix: str, start_sk: str | None) -> Iterator[Item]:
        """The live items of ``pk`` under ``prefix`` after ``start_sk``, one query page at a time."""
        start: dict[str, str] | None = {PK: pk, SK: start_sk} if start_sk else None
        while True:
            page = self._table.query(pk, sk_prefix=prefix, start_key=start, limit=READ_PAGE)
            yield from self._live(page.items)
            if page.last_key is None:
                return
            start = page.last_key

    # ------------------------------------------------------------------------------------- checkpoint
    def save_checkpoint(self, run_id: str, state: dict[str, Any]) -> None:
        self._write_blob(run_pk(run_id), CHECKPOINT_SK, encode(state), self._part_expiry())

    def load_checkpoint(self, run_id: str) -> dict[str, Any] | None:
        items = self._live(query_all(self._table, run_pk(run_id), sk_prefix=CHECKPOINT_SK))
        head = next((i for i in items if i[SK] == CHECKPOINT_SK), None)
        if head is None:
            return None
        state: dict[str, Any] = json.loads(blob_text(head, items))
        return state

    def put_mark(self, run_id: str, name: str, value: dict[str, Any], *, only_new: bool = False) -> bool:
        item = stamp({PK: run_pk(run_id), SK: f"{MARK_PREFIX}{name}", "data": encode(value)}, self._part_expiry())
        try:
            self._table.put(item, condition="not_exists" if only_new else None)
        except Conflict:
            return False
        return True

    def list_marks(self, run_id: str, prefix: str = "") -> dict[str, dict[str, Any]]:
        items = self._live(query_all(self._table, run_pk(run_id), sk_prefix=f"{MARK_PREFIX}{prefix}"))
        return {str(item[SK]).removeprefix(MARK_PREFIX): json.loads(str(item["data"])) for item in items}

    # ------------------------------------------------------------------------------------- spill
    def put_outbox(self, run_id: str, jobs: Sequence[dict[str, Any]], *, at: str) -> None:
        self._table.put(
            {
                PK: run_pk(run_id),
                SK: OUTBOX_SK,
                "GSI1PK": OUTBOX_INDEX_PK,
                "GSI1SK": f"{at}#{run_id}",
                "data": encode(list(jobs)),
            },
            condition=None,
        )

    def list_outbox(self, limit: int = 100) -> list[tuple[str, list[dict[str, Any]]]]:
        page = self._table.query(OUTBOX_INDEX_PK, index="GSI1", limit=limit)
        return [(str(item[PK]).removeprefix("RUN#"), json.loads(str(item["data"]))) for item in page.items]

    def delete_outbox(self, run_id: str) -> None:
        self._table.delete(run_pk(run_id), OUTBOX_SK)

    # ------------------------------------------------------------------------------------- privacy
    def iter_owned(
        self, user_id: str, run_ids: Sequence[str] = (), *, include_expired: bool = False
    ) -> Iterator[OwnedItem]:
        now = self._clock.now()
        return OwnedRuns(self._table).iter_owned(user_id, run_ids, now=now, include_expired=include_expired)

    def erase_owned(self, user_id: str, run_ids: Sequence[str] = ()) -> dict[str, int]:
        return OwnedRuns(self._table).erase_owned(user_id, run_ids)

    def _stored(self, run: Run) -> Item:
        return stored_item(self._table, run, self._run_expiry(run), chunk=self._chunk)

    def _write_blob(self, pk: str, sk: str, text: str, expires_at: int | None) -> None:
        write_blob(self._table, pk, sk, text, chunk=self._chunk, expires_at=expires_at)
