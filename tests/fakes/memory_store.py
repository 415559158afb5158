"""An in-memory :class:`mneme.ports.memory.MemoryStore`: pure Python, exact search, same semantics as the
OpenSearch adapter and the embedded store (the contract suite runs against all of them). Its reads are the
shipped :class:`mneme.memory.snapshot.MemorySnapshot` (what an as-of search reads), so the two never differ."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

from mneme.errors import MemoryUnavailable, NotFound
from mneme.memory.lifecycle import page_after, refreshed_fields
from mneme.memory.snapshot import MemorySnapshot, live
from mneme.models.memory import MemoryCandidate, MemoryClass, MemoryDocument
from mneme.namespace_grammar import matches

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from datetime import datetime


class InMemoryMemoryStore(MemorySnapshot):
    """The reads of :class:`~mneme.memory.snapshot.MemorySnapshot` (search, keyword matches, adjacency), plus
    every write. ``unavailable = True`` makes every call raise MemoryUnavailable (degraded-mode tests);
    ``searches`` records ``(patterns, k)`` of each search."""

    def __init__(self) -> None:
        super().__init__()
        self.searches: list[tuple[list[str], int]] = []
        self.unavailable = False

    def _check(self) -> None:
        if self.unavailable:
            raise MemoryUnavailable("memory store unavailable (fake)")

    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        self._check()
        with self._lock:
            self.searches.append((list(patterns), k))
        return super().search(vector, patterns, k, now=now)

    def set_status(
        self,
        doc_id: str,
        namespace: str,
        *,
        status: Literal["active", "superseded"],
        superseded_by: str | None,
        now: datetime,
        authority: str | None = None,
    ) -> MemoryDocument:
        self._check()
        with self._lock:
            change: dict[str, Any] = {
                "superseded": status == "superseded",
                "superseded_by": superseded_by if status == "superseded" else None,
                "updated_at": now,
            }
            if authority is not None:
                change["authority"] = authority
            doc = self._find(doc_id, namespace).model_copy(update=change)
            self.documents[doc_id] = doc
            return doc

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        self._check()
        with self._lock:
            old = self._find(doc_id, namespace)
            doc = old.model_copy(update=refreshed_fields(old, newer))
            self.documents[doc_id] = doc
            return doc

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        self._check()
        with self._lock:
            docs = [self.documents[i] for i in self._by_namespace.get(namespace, [])]
        docs = [d for d in docs if (d.status == status if status else not d.deleted)]
        return page_after(docs, cursor, limit)

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        self._check()
        counts: dict[str, dict[str, int]] = {}
        with self._lock:
            for namespace, ids in sorted(self._by_namespace.items()):
                if any(matches(pattern, namespace) for pattern in patterns):
                    counted = Counter(self.documents[i].status for i in ids)
                    counts[namespace] = {name: counted.get(name, 0) for name in ("active", "superseded", "deleted")}
        return counts

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        return []  # read-your-writes: search shows every write at once

    def derived_ids(self, doc_id: str) -> list[str]:
        self._check()
        with self._lock:
            marked: list[str] = []
            frontier = {doc_id}
            while frontier:
                derived = [
                    doc.id
                    for doc in sorted(self.documents.values(), key=lambda d: (d.created_at, d.id))
                    if not doc.deleted
                    and doc.id not in marked
                    and doc.id != doc_id
                    and frontier & set(doc.derived_from)
                ]
                marked += derived
                frontier = set(derived)
            return marked

    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        self._check()
        ids: list[str] = []
        with self._lock:
            for doc, vector in items:
                old = next(
                    (
                        self.documents[i]
                        for i in self._by_namespace.get(doc.namespace, [])
                        if self.documents[i].content_hash == doc.content_hash
                        and live(self.documents[i], doc.updated_at)
                        and self.documents[i].chunk_count is None  # a chunk is its document's own
                    ),
                    None,
                )
                if doc.chunk_count is not None:
                    old = None
                if old is None:
                    self._add(doc, vector)
                    ids.append(doc.id)
                    continue
                self.documents[old.id] = old.model_copy(  # identical content: refresh in place
                    update={
                        "tags": list(dict.fromkeys([*old.tags, *doc.tags])),
                        "derived_from": list(dict.fromkeys([*old.derived_from, *doc.derived_from])),
                        "updated_at": doc.updated_at,
                        "expires_at": doc.expires_at,
                    }
                )
                ids.append(old.id)
        return ids

    def _find(self, doc_id: str, namespace: str) -> MemoryDocument:
        doc = self.documents.get(doc_id)
        if doc is None or doc.namespace != namespace or doc.deleted:
            raise NotFound(f"memory entry {doc_id!r} not found in {namespace!r}")
        return doc

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None:
        self._check()
        with self._lock:
            try:
                return self._find(doc_id, namespace)
            except NotFound:
                return None

    def find(self, doc_id: str) -> MemoryDocument | None:
        self._check()
        with self._lock:
            doc = self.documents.get(doc_id)
            return doc if doc is not None and not doc.deleted else None

    def update(
        self,
        doc_id: str,
        namespace: str,
        *,
        content: str | None,
        tags: list[str] | None,
        vector: Sequence[float] | None,
        now: datetime,
    ) -> MemoryDocument:
        self._check()
        with self._lock:
            change: dict[str, Any] = {"updated_at": now}
            if content is not None:
                change |= {"content": content, "content_hash": hashlib.sha256(content.encode()).hexdigest()}
            if tags is not None:
                change["tags"] = list(tags)
            doc = self._find(doc_id, namespace).model_copy(update=change)
            self.documents[doc_id] = doc
            if vector is not None:
                self.vectors[doc_id] = [float(x) for x in vector]
            return doc

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        self._check()
        with self._lock:
            return [self.documents[i] for i in dict.fromkeys(doc_ids) if i in self.documents]

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        self._check()
        with self._lock:
            self._find(doc_id, namespace)
            marked = [doc_id]
            frontier = {doc_id}
            while frontier:  # transitive: entries derived from entries derived from ...
                derived = [
                    doc.id
                    for doc in sorted(self.documents.values(), key=lambda d: (d.created_at, d.id))
                    if not doc.deleted and doc.id not in marked and frontier & set(doc.derived_from)
                ]
                marked += derived
                frontier = set(derived)
            for i in marked:
                self.documents[i] = self.documents[i].model_copy(update={"deleted": True, "updated_at": now})
            return marked

    # ----------------------------------------------------------------------------------------- privacy
    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        self._check()
        with self._lock:
            found = sorted(
                (
                    d
                    for d in self.documents.values()
                    if d.namespace.startswith("vector.global.") and d.metadata.get("user_id") == user_id
                ),
                key=lambda d: d.id,
            )
        yield from found

    def hard_delete(self, ids: Sequence[str]) -> int:
        self._check()
        with self._lock:
            gone = [i for i in dict.fromkeys(ids) if i in self.documents]
            for doc_id in gone:
                doc = self.documents.pop(doc_id)
                self.vectors.pop(doc_id, None)
                self._by_namespace[doc.namespace].remove(doc_id)
            return len(gone)

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        with self._lock:
            expired = [
                d.id
                for d in self.documents.values()
                if (d.expires_at is not None and d.expires_at <= now)
                or (d.memory_class in cutoffs and d.created_at < cutoffs[d.memory_class])
            ]
        return self.hard_delete(expired)
