"""The OpenSearch store's owner-scoped operations for exports and erasures, and the purge of expired entries
(a mixin of :class:`~mneme.adapters.opensearch.store.OpenSearchMemoryStore`).

A listing scans a filtered query a page at a time (``search_after`` on ``memory_id``); with a journal, the
entries written inside the refresh window (Serverless) that a search does not show yet are found by ``_id``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mneme.adapters.opensearch.queries import expired_filter, from_source, scan_body
from mneme.models.memory import MemoryClass, MemoryDocument

if TYPE_CHECKING:
    from mneme.ports.memory import MemoryJournal

_SCAN_PAGE = 500  # documents per page of an owner's listing (search_after)
_DELETE_BATCH = 500  # memory ids per lookup of a hard delete


class OpenSearchOwned:
    """Needs the host store's index, journal and query helpers (declared here for the type checker only)."""

    if TYPE_CHECKING:
        _index: str
        _journal: MemoryJournal | None

        def _search(self, body: dict[str, Any], action: str, *, knn: bool = False) -> list[dict[str, Any]]: ...

        def _query(self, clauses: list[dict[str, Any]], size: int = 10_000) -> list[dict[str, Any]]: ...

        def _bulk(self, actions: list[dict[str, Any]]) -> dict[str, Any]: ...

        def _by_native_id(self, os_id: str) -> MemoryDocument | None: ...

    def _scan(self, clauses: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Every hit of a filtered query, a page at a time in ``memory_id`` order (``search_after``)."""
        after: list[Any] | None = None
        while True:
            hits = self._search(scan_body(clauses, _SCAN_PAGE, after), "listing")
            yield from hits
            if len(hits) < _SCAN_PAGE:
                return
            after = hits[-1]["sort"]

    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        """The scan, then what the journal holds of the user that the scan did not list: an entry written
        inside the refresh window (Serverless) is not searchable yet, and an erasure must still find it."""
        listed: set[str] = set()
        for hit in self._scan([{"term": {"owner_user_id": user_id}}]):
            doc = from_source(hit["_source"])
            listed.add(doc.id)
            yield doc
        if self._journal is None:
            return
        for entry in self._journal.owned(user_id):
            if entry.doc_id in listed:
                continue
            fresh = self._by_native_id(entry.native_id)
            if fresh is not None and fresh.owner_user_id == user_id:
                listed.add(fresh.id)
                yield fresh

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        clauses = [{"term": {"namespace_prefixes": "vector.global."}}, {"term": {"user_id": user_id}}]
        for hit in self._scan(clauses):
            yield from_source(hit["_source"])

    def hard_delete(self, ids: Sequence[str]) -> int:
        """Look up every stored copy of each id (aoss may hold two), then delete them by ``_id`` in bulk."""
        unique = list(dict.fromkeys(ids))
        removed = 0
        for start in range(0, len(unique), _DELETE_BATCH):
            batch = unique[start : start + _DELETE_BATCH]
            native = {hit["_id"] for hit in self._query([{"terms": {"memory_id": batch}}])}
            if self._journal is not None:  # written inside the refresh window: a search does not show it yet
                fresh = {entry.native_id for entry in self._journal.lookup(batch).values()} - native
                native |= {_id for _id in fresh if self._by_native_id(_id) is not None}
            self._bulk([{"delete": {"_index": self._index, "_id": _id}} for _id in sorted(native)])
            removed += len(native)
        if self._journal is not None and unique:
            self._journal.forget(unique)
        return removed

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        ids = [hit["_source"]["memory_id"] for hit in self._scan([expired_filter(now, cutoffs)])]
        return self.hard_delete(ids)
