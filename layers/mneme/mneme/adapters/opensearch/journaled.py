"""The OpenSearch store's journal of recent writes (a mixin of
:class:`~mneme.adapters.opensearch.store.OpenSearchMemoryStore`).

``aoss`` has no refresh: a write becomes searchable after the collection's refresh interval. With a
:class:`~mneme.ports.memory.MemoryJournal` the store notes each write's ``_id``, content hash and status, finds
a recent entry by ``_id`` (``GET _doc`` is realtime), and hides from searches what was deleted or superseded since.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mneme.adapters.opensearch.http import OpenSearchHTTPError, SignedOpenSearch
from mneme.adapters.opensearch.queries import from_source
from mneme.errors import MemoryUnavailable
from mneme.models.memory import MemoryCandidate, MemoryDocument
from mneme.ports.memory import JournalEntry, MemoryJournal

Found = dict[tuple[str, str], tuple[str, MemoryDocument]]  # (namespace, hash) → (_id, document)


class OpenSearchJournaled:
    """Needs the host store's client, index and journal (declared here for the type checker only)."""

    if TYPE_CHECKING:
        _client: SignedOpenSearch
        _index: str
        _journal: MemoryJournal | None

    def _note(self, docs: Sequence[tuple[MemoryDocument, str]], status: str) -> None:
        """Remember recent writes (``aoss`` with a journal only)."""
        if self._journal is not None and docs:
            entries = [
                JournalEntry(d.id, d.namespace, d.content_hash, os_id, status, d.owner_user_id) for d, os_id in docs
            ]
            self._journal.record(entries)

    def _by_native_id(self, os_id: str) -> MemoryDocument | None:
        try:
            found = self._client.get(index=self._index, id=os_id, _source_excludes=["embedding"])
        except OpenSearchHTTPError as exc:
            if exc.status == 404:
                return None
            raise MemoryUnavailable(f"OpenSearch get failed: {exc}") from exc
        return from_source(found["_source"]) if found.get("found") else None

    def _journaled(self, doc_id: str) -> tuple[str, MemoryDocument] | None:
        """An entry the index does not show yet, by its ``_id`` in the journal."""
        entry = self._journal.lookup([doc_id]).get(doc_id) if self._journal is not None else None
        if entry is None or entry.status == "deleted":
            return None
        doc = self._by_native_id(entry.native_id)
        return (entry.native_id, doc) if doc is not None and not doc.deleted else None

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        """The journal's recent entries of ``namespace`` (realtime GETs with their vectors)."""
        if self._journal is None:
            return []
        out: list[tuple[MemoryDocument, list[float]]] = []
        for entry in self._journal.recent(namespace):
            try:
                found = self._client.get(index=self._index, id=entry.native_id)
            except OpenSearchHTTPError as exc:
                if exc.status == 404:
                    continue
                raise MemoryUnavailable(f"OpenSearch get failed: {exc}") from exc
            source = dict(found.get("_source") or {})
            vector = source.pop("embedding", None)
            doc = from_source(source) if found.get("found") and vector else None
            if doc is not None and doc.status == "active":
                out.append((doc, [float(x) for x in vector]))
        return out

    def _hidden(self, candidates: list[MemoryCandidate]) -> list[MemoryCandidate]:
        """Drop what the journal knows was deleted or superseded since the index's last refresh."""
        if self._journal is None or not candidates:
            return candidates
        known = self._journal.lookup([c.document.id for c in candidates])
        return [
            c for c in candidates if known.get(c.document.id, None) is None or known[c.document.id].status == "active"
        ]

    def _journaled_duplicates(self, docs: Sequence[MemoryDocument], found: Found) -> Found:
        """Identical live content written inside the refresh window (the index does not show it yet)."""
        if self._journal is None:
            return {}
        keys = [
            (d.namespace, d.content_hash)
            for d in docs
            if d.chunk_count is None and (d.namespace, d.content_hash) not in found
        ]
        out: Found = {}
        for key, entry in self._journal.by_hash(keys).items():
            doc = self._by_native_id(entry.native_id)
            if doc is not None and not doc.deleted and not doc.superseded and doc.chunk_count is None:
                out[key] = (entry.native_id, doc)
        return out
