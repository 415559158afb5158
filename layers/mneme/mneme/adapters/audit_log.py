"""AuditLog over an ItemTable bound to the audit table — and the one place that defines its item shape.

* ``PK = USER#<user_id>``: one user's records are one partition (a user can only ever query their own).
* ``SK = <at>#<run_id or ->#<seq:04d><random:8 hex>`` with ``at`` = ISO-8601 UTC with microseconds
  (``2026-11-30T09:05:00.123456Z``), so the sort key orders by time.
* Attributes ``at``, ``action``, ``user_id``, ``depth``, ``detail`` (JSON text) and, only when set,
  ``namespace``, ``run_id``, ``agent_id``, ``task_id`` and ``root_run_id`` — the last one is the partition
  key of the sparse GSI ``ByRootRun`` (``root_run_id``, ``SK``): a whole delegation tree, oldest first.
* Append-only: each record is a conditional put (``attribute_not_exists(PK)``), never an update; any
  failure raises ``AuditWriteFailed`` so callers fail closed. The function role may only PutItem and
  Query this table.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from mneme.adapters.items import PK, SK, Item, ItemTable, Put, query_all
from mneme.errors import AuditWriteFailed, Conflict, InvalidInput
from mneme.models import AuditRecord
from mneme.ports import AuditPage

BY_ROOT_RUN = "ByRootRun"
MAX_LIMIT = 500
#: DynamoDB's TransactWriteItems limit
MAX_TRANSACTION = 100
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


def encode_cursor(key: dict[str, str]) -> str:
    raw = json.dumps({PK: key[PK], SK: key[SK]}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, user_id: str) -> dict[str, str]:
    """The start key of a cursor; InvalidInput when it is malformed, tampered or another user's."""
    invalid = InvalidInput("cursor is not valid for this query", field="cursor")
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid from None
    if not isinstance(data, dict) or set(data) != {PK, SK}:
        raise invalid
    pk, sk = data[PK], data[SK]
    if pk != user_pk(user_id) or not isinstance(sk, str) or not _SK.match(sk):
        raise invalid
    return {PK: pk, SK: sk}


class ItemAuditLog:
    def __init__(self, table: ItemTable) -> None:
        self._table = table

    def append(self, records: Sequence[AuditRecord]) -> None:
        """One round trip for several records (a transaction of conditional puts); when it meets records
        a retried step already stored, they are written one by one and the stored ones skipped."""
        items = [audit_item(record, seq) for seq, record in enumerate(records)]
        if len(items) > 1 and len(items) <= MAX_TRANSACTION:
            try:
                self._table.transact([Put(item, condition="not_exists") for item in items])
                return
            except Conflict:
                pass  # some already exist: below, one by one
            except Exception as exc:
                raise AuditWriteFailed(f"audit records could not be written: {exc}") from exc
        for record, item in zip(records, items, strict=True):
            self._put_one(record, item)

    def _put_one(self, record: AuditRecord, item: Item) -> None:
        try:
            self._table.put(item, condition="not_exists")
        except Conflict:
            if record.record_id is None:  # a random key never collides: something else is wrong
                raise AuditWriteFailed("audit record key collision") from None
            # a retried step writing the same record again: it is stored already, once
        except Exception as exc:
            raise AuditWriteFailed(f"audit record could not be written: {exc}") from exc

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
        start = decode_cursor(cursor, user_id) if cursor else None
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
