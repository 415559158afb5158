"""A read-only memory held in memory: documents and their vectors, searched exactly (issue 35.3).

:class:`MemorySnapshot` answers what a search reads (:class:`mneme.ports.memory.MemoryView`): the nearest
live documents, the keyword leg's matches and statistics, the conversation around a turn, a user's own
entries. The as-of search (:mod:`mneme.engine.memory_io.history`) builds one from the memory as it was and
runs the live search's retrieval and ranking over it unchanged — one ranking, never a second copy of it.
The tests' in-memory store is this same code plus writes.

The semantics are the stores': the filter (namespace, not deleted, not superseded, not expired at ``now``)
applies inside each query; ``similarity`` is the dot product of unit vectors (every embedder's are unit
length); keyword statistics are over the live documents of the granted namespaces only, words compared by
Porter stem as SQLite FTS5's ``porter`` tokenizer matches them; "written just before" is the order the
documents were added in. A document given without a vector is never found by the vector search (a
keyword-only search needs none).
``keyword_search_available = False`` mirrors a store without keyword search (S3 Vectors): no keyword
matches, no conversation windows — the hybrid search over it is the vector leg, as over that store.
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING

from mneme.memory.keyword_scoring import KeywordSearch, rarest_first, stem, stems
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryDocument
from mneme.namespace_grammar import matches

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from datetime import datetime


def live(doc: MemoryDocument, now: datetime) -> bool:
    """Neither deleted, superseded nor expired at ``now``: what a search may find."""
    expired = doc.expires_at is not None and doc.expires_at <= now
    return not (doc.deleted or doc.superseded or expired)


class MemorySnapshot(KeywordSearch):
    """Documents (in write order per namespace) and vectors in dicts; see the module doc."""

    def __init__(
        self,
        documents: Iterable[MemoryDocument] = (),
        vectors: Mapping[str, Sequence[float]] | None = None,
        *,
        keyword_search_available: bool = True,
    ) -> None:
        """``documents`` in the order they were written; ``vectors`` by id (a document without one is not found
        by :meth:`search`: give one to every document that may be live when vectors are searched)."""
        self.keyword_search_available = keyword_search_available
        self.documents: dict[str, MemoryDocument] = {}
        self.vectors: dict[str, list[float]] = {}
        self._by_namespace: dict[str, list[str]] = {}
        self._lock = threading.RLock()
        for doc in documents:
            self._add(doc, (vectors or {}).get(doc.id))

    def _add(self, doc: MemoryDocument, vector: Sequence[float] | None) -> None:
        if doc.id not in self.documents:
            self._by_namespace.setdefault(doc.namespace, []).append(doc.id)
        self.documents[doc.id] = doc
        if vector is not None:
            self.vectors[doc.id] = [float(x) for x in vector]

    def _check(self) -> None:
        """Called before each read (the tests' store raises here when made unavailable)."""

    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        self._check()
        with self._lock:
            scored: list[tuple[float, str]] = []
            for namespace, ids in self._by_namespace.items():
                if not any(matches(pattern, namespace) for pattern in patterns):
                    continue
                for doc_id in ids:
                    if doc_id in self.vectors and live(self.documents[doc_id], now):
                        similarity = math.fsum(a * b for a, b in zip(vector, self.vectors[doc_id], strict=True))
                        scored.append((similarity, doc_id))
            scored.sort(key=lambda item: (-item[0], item[1]))
            return [
                MemoryCandidate(document=self.documents[doc_id], similarity=similarity)
                for similarity, doc_id in scored[: max(k, 0)]
            ]

    def _readable(self, patterns: Sequence[str], now: datetime) -> list[MemoryDocument]:
        """The live documents of the matched namespaces, each namespace's in write order."""
        return [
            self.documents[i]
            for namespace, ids in self._by_namespace.items()
            if any(matches(pattern, namespace) for pattern in patterns)
            for i in ids
            if live(self.documents[i], now)
        ]

    def keyword_matches(
        self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
    ) -> KeywordMatches:
        self._check()
        with self._lock:
            docs = self._readable(patterns, now) if words and self.keyword_search_available else []
            bags = {doc.id: set(stems(doc.content)) for doc in docs}
            doc_freq = {w: sum(1 for doc in docs if stem(w) in bags[doc.id]) for w in words}
            found: dict[str, MemoryDocument] = {}
            for word in rarest_first(words, doc_freq):
                for doc in reversed(docs):
                    if len(found) < limit and stem(word) in bags[doc.id]:
                        found.setdefault(doc.id, doc)
            return KeywordMatches(
                documents=list(found.values()),
                total_documents=len(docs),
                total_chars=sum(len(doc.content) for doc in docs),
                doc_freq=doc_freq,
            )

    def adjacent(
        self, documents: Sequence[MemoryDocument], span: int, *, now: datetime
    ) -> dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]:
        self._check()
        around: dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]] = {}
        with self._lock:
            for doc in documents:
                ids = self._by_namespace.get(doc.namespace, [])
                if doc.id not in ids or span <= 0 or not self.keyword_search_available:
                    continue
                at = ids.index(doc.id)
                before = [self.documents[i] for i in ids[:at] if live(self.documents[i], now)][-span:]
                after = [self.documents[i] for i in ids[at + 1 :] if live(self.documents[i], now)][:span]
                around[doc.id] = (before, after)
        return around

    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        self._check()
        with self._lock:
            found = sorted((d for d in self.documents.values() if d.owner_user_id == user_id), key=lambda d: d.id)
        yield from found
