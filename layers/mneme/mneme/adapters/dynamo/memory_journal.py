"""The memory journal over the main item table (issue 11.4): what OpenSearch Serverless does not show yet.

Up to four items per recent write, expiring after :data:`WINDOW` (DynamoDB TTL; also checked on read, as
TTL deletes lazily): ``MEMJ#<doc id>`` holds the namespace, content hash, the service-assigned ``_id``, the
status and the owner; ``MEMJH#<namespace>#<hash>`` points at the entry holding that content;
``MEMJN#<namespace>`` (sort key: time and id) lists the namespace's recent entries for consolidation, and
``MEMJO#<owner>`` the owner's, for an erasure or an export (a user's entries are listed by a search).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from mneme.adapters.dynamo.items import PK, SK, ItemTable, query_all
from mneme.adapters.dynamo.ttl import TTL_ATTRIBUTE
from mneme.ports.common import Clock
from mneme.ports.memory import JournalEntry

WINDOW = timedelta(minutes=10)  # well past the 60 s refresh interval
MAX_RECENT = 50  # per namespace: what consolidation checks beyond the index
_ENTRY, _HASH, _NAMESPACE, _OWNER = "MEMJ#", "MEMJH#", "MEMJN#", "MEMJO#"


class ItemMemoryJournal:
    def __init__(self, table: ItemTable, clock: Clock) -> None:
        self._table = table
        self._clock = clock

    def _expires(self) -> int:
        return int((self._clock.now() + WINDOW).timestamp())

    def _live(self, item: dict[str, object]) -> bool:
        expires = item.get(TTL_ATTRIBUTE)
        return not isinstance(expires, int | float) or expires > self._clock.now().timestamp()

    def record(self, entries: Sequence[JournalEntry]) -> None:
        expires = self._expires()
        items = []
        for e in entries:
            fields = {"namespace": e.namespace, "content_hash": e.content_hash, "native_id": e.native_id}
            owner = {"owner_user_id": e.owner_user_id} if e.owner_user_id else {}
            entry = {PK: _ENTRY + e.doc_id, SK: "-", **fields, "status": e.status, **owner, TTL_ATTRIBUTE: expires}
            items.append(entry)
            if e.status == "active":
                key = f"{_HASH}{e.namespace}#{e.content_hash}"
                items.append({PK: key, SK: "-", "doc_id": e.doc_id, **fields, TTL_ATTRIBUTE: expires})
                listed = f"{self._clock.now().isoformat()}#{e.doc_id}"
                items.append({PK: _NAMESPACE + e.namespace, SK: listed, "doc_id": e.doc_id, TTL_ATTRIBUTE: expires})
                if e.owner_user_id:
                    owned = {PK: _OWNER + e.owner_user_id, SK: listed, "doc_id": e.doc_id, TTL_ATTRIBUTE: expires}
                    items.append(owned)
        if items:
            self._table.put_many(items)

    def lookup(self, doc_ids: Sequence[str]) -> dict[str, JournalEntry]:
        keys = [(_ENTRY + doc_id, "-") for doc_id in dict.fromkeys(doc_ids)]
        found: dict[str, JournalEntry] = {}
        for item in self._table.batch_get(keys) if keys else []:
            if self._live(item):
                doc_id = str(item[PK])[len(_ENTRY) :]
                found[doc_id] = JournalEntry(
                    doc_id,
                    str(item["namespace"]),
                    str(item["content_hash"]),
                    str(item["native_id"]),
                    str(item["status"]),
                    str(item.get("owner_user_id") or ""),
                )
        return found

    def by_hash(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], JournalEntry]:
        items = self._table.batch_get([(f"{_HASH}{ns}#{h}", "-") for ns, h in dict.fromkeys(keys)]) if keys else []
        pointed = {str(i["doc_id"]): (str(i["namespace"]), str(i["content_hash"])) for i in items if self._live(i)}
        current = self.lookup(list(pointed))  # the entry's own item knows whether it is still active
        return {pointed[d]: e for d, e in current.items() if e.status == "active"}

    def forget(self, doc_ids: Sequence[str]) -> None:
        """Delete every item of these entries (deleted for good: an erasure leaves not even their hashes)."""
        keys = [(_ENTRY + doc_id, "-") for doc_id in dict.fromkeys(doc_ids)]
        items = self._table.batch_get(keys) if keys else []
        gone: list[tuple[str, str]] = [(str(i[PK]), str(i[SK])) for i in items]
        listings: dict[str, set[str]] = {}  # the namespace's and the owner's listing partitions → their ids
        for item in items:
            doc_id, namespace = str(item[PK])[len(_ENTRY) :], str(item["namespace"])
            listings.setdefault(_NAMESPACE + namespace, set()).add(doc_id)
            if item.get("owner_user_id"):
                listings.setdefault(_OWNER + str(item["owner_user_id"]), set()).add(doc_id)
            gone.append((f"{_HASH}{namespace}#{item['content_hash']}", "-"))  # a later write re-records it
        for partition, ids in listings.items():
            listed = query_all(self._table, partition)
            gone += [(str(i[PK]), str(i[SK])) for i in listed if str(i.get("doc_id")) in ids]
        if gone:
            self._table.delete_many(gone)

    def recent(self, namespace: str) -> list[JournalEntry]:
        items = [i for i in query_all(self._table, _NAMESPACE + namespace, forward=False) if self._live(i)]
        ids = list(dict.fromkeys(str(i["doc_id"]) for i in items))[:MAX_RECENT]
        current = self.lookup(ids)
        return [current[d] for d in ids if d in current and current[d].status == "active"]

    def owned(self, owner_user_id: str) -> list[JournalEntry]:
        items = [i for i in query_all(self._table, _OWNER + owner_user_id) if self._live(i)]
        current = self.lookup(list(dict.fromkeys(str(i["doc_id"]) for i in items)))
        return [entry for entry in current.values() if entry.owner_user_id == owner_user_id]
