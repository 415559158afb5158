"""AuditLog over an ItemTable bound to the audit table — and the one place that defines its item shape.

* ``PK = USER#<user_id>``: one user's records are one partition (a user can only ever query their own).
* ``SK = <at>#<run_id or ->#<seq:04d><random:8 hex>`` with ``at`` = ISO-8601 UTC with microseconds
  (``2026-11-30T09:05:00.123456Z``), so the sort key orders by time.
* Attributes ``at``, ``action``, ``user_id``, ``depth``, ``detail`` (JSON text) and, only when set,
  ``namespace``, ``run_id``, ``agent_id``, ``task_id`` and ``root_run_id`` — the last one is the partition
  key of the sparse GSI ``ByRootRun`` (``root_run_id``, ``SK``): a whole delegation tree, oldest first.
* Append-only: each record is a conditional put (``attribute_not_exists(PK)``), never an update; any
  failure raises ``AuditWriteFailed`` so callers fail closed.
* Tamper-evident: a user's records form a hash chain (:mod:`mneme.adapters.dynamo.audit_chain`); an append puts
  its records and moves the user's chain head (conditional on the head's ``seq``) in one transaction, and
  re-chains on the new head when another append won the race. The head last seen is kept per instance, so
  an append normally costs no extra read.
* The one rewrite: an erasure replaces the ``detail`` of the user's older records (:meth:`ItemAuditLog.redact`);
  the chain covers the detail's digest, which stays, so it still verifies.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from mneme.adapters.dynamo import audit_chain
from mneme.adapters.dynamo.audit_chain import HEAD_SK, Head, head_item, head_of, head_pk
from mneme.adapters.dynamo.cursors import decode_cursor, encode_cursor
from mneme.adapters.dynamo.items import PK, SK, AttrEquals, Item, ItemTable, Put, query_all
from mneme.errors import AuditWriteFailed, Conflict, InvalidInput, MnemeError
from mneme.models import AuditRecord
from mneme.models.privacy import ChainReport
from mneme.ports.audit import AuditPage
from mneme.ports.common import OwnedItem

BY_ROOT_RUN = "ByRootRun"
MAX_LIMIT = 500
#: DynamoDB's TransactWriteItems limit: the chain head and 99 records
MAX_TRANSACTION = 100
#: appends that lost the race for the chain head are re-chained this many times (with a jittered back-off)
CHAIN_ATTEMPTS = 25
#: items evaluated per query when filters are given (DynamoDB's Limit counts items before the filter).
FILTERED_SCAN = 200
_OPTIONAL = ("namespace", "run_id", "root_run_id", "agent_id", "task_id")
_SK = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z#[^#]+#[0-9a-f]{12}$")


def user_pk(user_id: str) -> str:
    return f"USER#{user_id}"


def timestamp(at: datetime) -> str:
    aware = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def audit_item(record: AuditRecord, seq: int) -> Item:
    """The stored item of one record (``seq``: its position in the append call)."""
    at = timestamp(record.at)
    item: Item = {
        PK: user_pk(record.user_id),
        SK: f"{at}#{record.run_id or '-'}#{record.record_id or f'{seq % 10_000:04d}{uuid.uuid4().hex[:8]}'}",
        "at": at,
        "action": record.action,
        "user_id": record.user_id,
        "depth": record.depth,
        "detail": json.dumps(record.detail, separators=(",", ":"), default=str),
    }
    for name in _OPTIONAL:
        value = getattr(record, name)
        if value:  # sparse: absent, never null or empty (root_run_id is a GSI key)
            item[name] = value
    return item


def audit_record(item: Item) -> AuditRecord:
    fields: dict[str, Any] = {name: item.get(name) for name in _OPTIONAL}
    return AuditRecord(
        at=datetime.strptime(item["at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC),
        action=item["action"],
        user_id=item["user_id"],
        depth=int(item.get("depth", 0)),
        detail=json.loads(item.get("detail") or "{}"),
        **fields,
    )


def _cursor_start(cursor: str, user_id: str) -> dict[str, str]:
    """The start key of a cursor; InvalidInput when it is malformed, tampered or another user's."""
    return decode_cursor(cursor, (PK, SK), lambda key: key[PK] == user_pk(user_id) and bool(_SK.match(key[SK])))


class ItemAuditLog:
    def __init__(self, table: ItemTable, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._table = table
        self._sleep = sleep
        self._heads: dict[str, Head | None] = {}  # the chain head last seen, per user
        self._lock = threading.Lock()

    def append(self, records: Sequence[AuditRecord]) -> None:
        """Append to each user's chain: the records (conditional puts) and the moved chain head in one
        transaction. Records a retried step already stored are skipped (stored once, never twice)."""
        items = [audit_item(record, seq) for seq, record in enumerate(records)]
        by_user: dict[str, list[tuple[AuditRecord, Item]]] = {}
        for record, item in zip(records, items, strict=True):
            by_user.setdefault(record.user_id, []).append((record, item))
        try:
            for user_id, pairs in by_user.items():
                for start in range(0, len(pairs), MAX_TRANSACTION - 1):
                    self._append_chained(user_id, pairs[start : start + MAX_TRANSACTION - 1])
        except AuditWriteFailed:
            raise
        except Exception as exc:
            raise AuditWriteFailed(f"audit records could not be written: {exc}") from exc

    def _append_chained(self, user_id: str, pairs: list[tuple[AuditRecord, Item]]) -> None:
        for attempt in range(CHAIN_ATTEMPTS):
            head = self._head(user_id, fresh=attempt > 0)
            linked, moved = audit_chain.chain(head, [item for _, item in pairs])
            # a Put, not an Update, conditional on the head it read: the role needs no UpdateItem on the table
            head_op = Put(head_item(user_id, moved), "not_exists" if head is None else AttrEquals("seq", head.seq))
            try:
                self._table.transact([head_op, *(Put(item, condition="not_exists") for item in linked)])
            except Conflict:
                pairs = self._not_stored(pairs)
                if not pairs:
                    return
                self._sleep(random.uniform(0, min(0.005 * 2**attempt, 0.2)))
                continue
            with self._lock:
                self._heads[user_id] = moved
            return
        raise AuditWriteFailed("the audit chain stayed contended: the records were not written")

    def warm(self, user_id: str) -> None:
        """Read the user's chain head now (the run's first append then needs no read of its own)."""
        self._head(user_id, fresh=False)

    def _head(self, user_id: str, *, fresh: bool) -> Head | None:
        with self._lock:
            if not fresh and user_id in self._heads:
                return self._heads[user_id]
        head = head_of(self._table.get(head_pk(user_id), HEAD_SK))
        with self._lock:
            self._heads[user_id] = head
        return head

    def _not_stored(self, pairs: list[tuple[AuditRecord, Item]]) -> list[tuple[AuditRecord, Item]]:
        """The records of a failed append that are not stored (a retried step's records are)."""
        stored = {(i[PK], i[SK]) for i in self._table.batch_get([(item[PK], item[SK]) for _, item in pairs])}
        if any(record.record_id is None and (item[PK], item[SK]) in stored for record, item in pairs):
            raise AuditWriteFailed("audit record key collision")  # a random key never collides
        return [(record, item) for record, item in pairs if (item[PK], item[SK]) not in stored]

    # ------------------------------------------------------------------------------------- privacy
    def iter_owned(self, user_id: str) -> Iterator[OwnedItem]:
        for item in query_all(self._table, user_pk(user_id)):
            record = audit_record(item).model_dump(mode="json", exclude={"record_id"})
            yield OwnedItem("audit", f"{item[PK]}|{item[SK]}", {**record, **audit_chain.export_fields(item)})

    def redact(self, user_id: str, through: AuditRecord) -> int:
        """Redact the detail of the records chained before the stored ``through`` record (and of records
        from before the chain). Idempotent: records redacted already are left as they are."""
        mark = audit_item(through, 0)
        stored = self._table.get(mark[PK], mark[SK])
        if stored is None or "chain_seq" not in stored:
            raise AuditWriteFailed("the erasure's audit record is not stored: nothing is redacted before it")
        limit, at = int(stored["chain_seq"]), timestamp(through.at)
        count = 0
        for item in query_all(self._table, user_pk(user_id)):
            if "redacted_at" in item or int(item.get("chain_seq", 0)) >= limit:
                continue
            current = (
                item if "chain_seq" in item else {**item, "detail_digest": audit_chain.sha256(str(item["detail"]))}
            )
            try:
                self._table.put(audit_chain.redacted(current, at), condition="exists")
            except MnemeError as exc:
                raise AuditWriteFailed(f"an audit record could not be redacted: {exc}") from exc
            count += 1
        return count

    def verify(self, user_id: str) -> ChainReport:
        head = head_of(self._table.get(head_pk(user_id), HEAD_SK))
        return audit_chain.verify(user_id, query_all(self._table, user_pk(user_id)), head)

    def query(
        self,
        user_id: str,
        *,
        run_id: str | None = None,
        namespace: str | None = None,
        action: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> AuditPage:
        """Newest first. With filters, further pages are read until ``limit`` matching records are found
        or the partition ends, so a page is only short when nothing more matches."""
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
        start = _cursor_start(cursor, user_id) if cursor else None
        wanted = {"run_id": run_id, "namespace": namespace, "action": action}
        filters = {name: value for name, value in wanted.items() if value is not None}
        found: list[Item] = []
        while True:
            remaining = limit - len(found)
            page = self._table.query(
                user_pk(user_id),
                forward=False,
                limit=max(remaining, FILTERED_SCAN) if filters else remaining,
                start_key=start,
                filters=filters or None,
            )
            if len(page.items) > remaining:  # over-read past the page: resume after the last one kept
                found += page.items[:remaining]
                return self._page(found, {PK: found[-1][PK], SK: found[-1][SK]})
            found += page.items
            if page.last_key is None or len(found) == limit:
                return self._page(found, page.last_key)
            start = page.last_key

    def by_root_run(self, root_run_id: str) -> list[AuditRecord]:
        items = query_all(self._table, root_run_id, index=BY_ROOT_RUN, forward=True)
        return [audit_record(item) for item in items]

    @staticmethod
    def _page(items: list[Item], last_key: dict[str, str] | None) -> AuditPage:
        return AuditPage([audit_record(i) for i in items], encode_cursor(last_key) if last_key else None)
