"""The S3 Vectors store's lifecycle, listings and keyword leg (a mixin of
:class:`mneme.adapters.s3vectors.store.S3VectorsMemoryStore`; see its docstring for the service's facts).

* :meth:`set_status` / :meth:`refresh`: read the entry with its vector, change it, write it whole again.
* :meth:`list_documents`, :meth:`namespace_counts`, the purge: a ListVectors scan of the index (strongly
  consistent; ``segmentCount`` segments read one after the other, 1,000 vectors a page), filtered and ordered here
  (newest first by ``created_at`` then id, the cursor of :mod:`mneme.memory.lifecycle`).
* No keyword leg (the module docstring of the store says why): :meth:`keyword_matches` finds nothing, so
  :meth:`keyword_search` is ``[]`` and hybrid retrieval keeps the vector leg; :meth:`adjacent` reads nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from mneme.adapters.s3vectors.entries import MAX_LIST, expired, from_vector
from mneme.memory.lifecycle import decode_cursor, encode_cursor, micros, refreshed_fields
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryClass, MemoryDocument
from mneme.namespace_grammar import matches

_STATUSES = ("active", "superseded", "deleted")


class S3VectorsLifecycle:
    """Needs the host store's calls (declared here for the type checker only)."""

    if TYPE_CHECKING:
        _segments: int

        def _call(self, operation: str, **params: Any) -> dict[str, Any]: ...

        def _found(self, doc_id: str, namespace: str, *, data: bool = False) -> tuple[MemoryDocument, list[float]]: ...

        def _put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> None: ...

        def hard_delete(self, ids: Sequence[str]) -> int: ...

    # ------------------------------------------------------------------------------------------- listing
    def _scan(self) -> Iterator[MemoryDocument]:
        """Every entry of the index (ListVectors, segment after segment, page after page)."""
        for segment in range(self._segments):
            token: str | None = None
            while True:
                params: dict[str, Any] = {"maxResults": MAX_LIST, "returnMetadata": True}
                params |= {"segmentCount": self._segments, "segmentIndex": segment}
                answer = self._call("list_vectors", **params, **({"nextToken": token} if token else {}))
                for item in answer.get("vectors", []):
                    yield from_vector(item["key"], item["metadata"])
                token = answer.get("nextToken")
                if not token:
                    break

    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        yield from sorted((d for d in self._scan() if d.owner_user_id == user_id), key=lambda d: d.id)

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        def authored(doc: MemoryDocument) -> bool:
            return doc.namespace.startswith("vector.global.") and doc.metadata.get("user_id") == user_id

        yield from sorted(filter(authored, self._scan()), key=lambda d: d.id)

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        after = decode_cursor(cursor)

        def wanted(doc: MemoryDocument) -> bool:
            if doc.namespace != namespace or (status != doc.status if status else doc.deleted):
                return False
            return after is None or (micros(doc.created_at), doc.id) < after

        docs = sorted(filter(wanted, self._scan()), key=lambda d: (micros(d.created_at), d.id), reverse=True)
        page = docs[:limit]
        return page, encode_cursor(page[-1]) if len(docs) > limit and page else None

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        if not patterns:
            return {}
        counts: dict[str, dict[str, int]] = {}
        for doc in self._scan():
            if any(matches(p, doc.namespace) for p in patterns):
                counts.setdefault(doc.namespace, dict.fromkeys(_STATUSES, 0))[doc.status] += 1
        return dict(sorted(counts.items()))

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        return self.hard_delete([doc.id for doc in self._scan() if expired(doc, now, cutoffs)])

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        """Nothing: searches are taken to show a write once PutVectors answered (see the store's docstring)."""
        return []

    # ------------------------------------------------------------------------------------------- lifecycle
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
        doc, vector = self._found(doc_id, namespace, data=True)
        by = superseded_by if status == "superseded" else None
        change: dict[str, Any] = {"superseded": status == "superseded", "superseded_by": by, "updated_at": now}
        if authority is not None:
            change["authority"] = authority
        changed = doc.model_copy(update=change)
        self._put([(changed, vector)])
        return changed

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        old, vector = self._found(doc_id, namespace, data=True)
        doc = old.model_copy(update=refreshed_fields(old, newer))
        self._put([(doc, vector)])
        return doc

    # ------------------------------------------------------------------------------------------- keyword leg
    def keyword_matches(
        self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
    ) -> KeywordMatches:
        return KeywordMatches(documents=[], total_documents=0, total_chars=0, doc_freq=dict.fromkeys(words, 0))

    def keyword_search(self, text: str, patterns: Sequence[str], k: int, *, now: datetime) -> list[MemoryCandidate]:
        return []

    def adjacent(
        self, documents: Sequence[MemoryDocument], span: int, *, now: datetime
    ) -> dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]:
        return {}
