"""Memory revisions in the main item table (issue 35.3), under the owner's key.

``PK = MEMREV#<owner>`` (``MEMREV#@global`` for the global entries), ``SK = <doc id>#<revision key>``: one
query lists an entry's history (a prefix) or all of a user's (the partition), one partition is what an
erasure removes. The entry as it was is kept as JSON (never its vector); a revision of an entry that expires
carries the entry's expiry as the table's TTL attribute.

A **claim** (``SK = <doc id>#claim#<ETag>``, no revision) marks the version of an entry one conditional change
(``If-Match``) was based on: a conditional put, so two requests that read the same ETag cannot both change the
entry — the store's own writes are unconditional. It is kept a day (TTL) and removed with the entry's
revisions; a claim older than :data:`CLAIM_STALE` (its change never finished) may be taken over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from mneme.adapters.dynamo.items import PK, SK, AttrEquals, ItemTable, query_all
from mneme.adapters.dynamo.ttl import TTL_ATTRIBUTE
from mneme.errors import Conflict
from mneme.models.revision import MemoryRevision

_PREFIX = "MEMREV#"
_GLOBAL = "@global"
_QUERIES_AT_MOST = 8  # entries forgotten one query each; more read the owner's partition once
CLAIM_STALE = timedelta(minutes=15)  # a claim this old was left by a change that never finished
_CLAIM_KEPT = timedelta(days=1)


def _partition(owner_user_id: str) -> str:
    return _PREFIX + (owner_user_id or _GLOBAL)


def _claim_key(doc_id: str, etag: str) -> str:
    return f"{doc_id}#claim#{etag.strip(chr(34))}"


def _expiry(revision: MemoryRevision) -> dict[str, int]:
    """A revision of an entry that expires (its TTL or its class retention) expires with it (DynamoDB TTL): the
    retention purge removes the entry, the table removes what it was."""
    expires = revision.document.expires_at
    return {TTL_ATTRIBUTE: int(expires.timestamp())} if expires is not None else {}


class ItemMemoryRevisions:
    def __init__(self, table: ItemTable) -> None:
        self._table = table

    def append(self, revisions: Sequence[MemoryRevision]) -> None:
        items = [
            {
                PK: _partition(r.owner_user_id),
                SK: f"{r.doc_id}#{r.key}",
                "revision": r.model_dump_json(),
                **_expiry(r),
            }
            for r in revisions
        ]
        if items:
            self._table.put_many(items)

    def history(self, owner_user_id: str, doc_id: str) -> list[MemoryRevision]:
        items = query_all(self._table, _partition(owner_user_id), sk_prefix=f"{doc_id}#")
        return [MemoryRevision.model_validate_json(str(item["revision"])) for item in items if "revision" in item]

    def owned(self, owner_user_id: str) -> list[MemoryRevision]:
        items = query_all(self._table, _partition(owner_user_id))
        return [MemoryRevision.model_validate_json(str(item["revision"])) for item in items if "revision" in item]

    def claim(self, owner_user_id: str, doc_id: str, etag: str, *, now: datetime) -> bool:
        pk, sk = _partition(owner_user_id), _claim_key(doc_id, etag)
        item = {PK: pk, SK: sk, "claimed_at": now.isoformat(), TTL_ATTRIBUTE: int((now + _CLAIM_KEPT).timestamp())}
        try:
            self._table.put(item, condition="not_exists")
            return True
        except Conflict:
            held = self._table.get(pk, sk)
        if held is None or datetime.fromisoformat(str(held["claimed_at"])) > now - CLAIM_STALE:
            return False
        try:  # left by a change that never finished: taken over, by one request only
            self._table.put(item, condition=AttrEquals(name="claimed_at", value=str(held["claimed_at"])))
            return True
        except Conflict:
            return False

    def release(self, owner_user_id: str, doc_id: str, etag: str) -> None:
        self._table.delete(_partition(owner_user_id), _claim_key(doc_id, etag))

    def erase(self, owner_user_id: str) -> int:
        return self._remove(query_all(self._table, _partition(owner_user_id)))

    def forget(self, owner_user_id: str, doc_ids: Sequence[str]) -> int:
        """A few entries: a query each; more: one query of the owner's partition, filtered."""
        wanted = dict.fromkeys(doc_ids)
        if len(wanted) <= _QUERIES_AT_MOST:
            return self._remove(
                item
                for doc_id in wanted
                for item in query_all(self._table, _partition(owner_user_id), sk_prefix=f"{doc_id}#")
            )
        items = query_all(self._table, _partition(owner_user_id))
        return self._remove(item for item in items if str(item[SK]).partition("#")[0] in wanted)

    def _remove(self, items: Iterable[Mapping[str, Any]]) -> int:
        keys = [(str(item[PK]), str(item[SK])) for item in items]
        if keys:
            self._table.delete_many(keys)
        return len(keys)
