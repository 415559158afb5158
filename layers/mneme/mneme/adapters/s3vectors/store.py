"""The Amazon S3 Vectors memory store (boto3 / botocore client ``s3vectors``; ``MNEME_MEMORY_BACKEND=s3vectors``).

What it relies on (Amazon S3 user guide and API reference, read through the ``search`` tool on 2026-12-05;
the request shapes are botocore 1.44.8's ``s3vectors`` 2025-07-15 model):

* **Filter inside the search.** ``QueryVectors`` takes ``filter`` and, with ``queryMode="ENHANCED"``, "applies
  metadata filters before the vector search" ("Querying vectors", the API's ``queryMode``; ENHANCED is the
  default for buckets created from 30 Sep 2026 and can be asked per query on a CLASSIC index, "Changing a vector
  index's mode"). Every search sends the namespace / not deleted / not superseded / not expired filter of
  :func:`mneme.adapters.s3vectors.entries.live_filter` with ENHANCED: top-K is taken among what the caller may
  read, never cut down afterwards. (The service's search itself is approximate nearest neighbour.)
* **topK ≤ 100** ("Limitations and restrictions"). A search that needs more — or whose hits a fresh read drops,
  see below — asks again with the keys it already has excluded (``{"id": {"$nin": [...]}}``); results come in
  distance order, so the union of the rounds is exactly the first ``k``. The engine asks at most
  ``max(50, top_k)`` (``memory_ops._depth``): one round in practice.
* **Consistency.** ListVectors is documented strongly consistent ("Listing vectors"); GetVectors is taken to be
  too (a key read, like S3 objects). Query visibility is not documented, so each search re-reads its hits by key
  (one GetVectors, ``verify_queries=True``) and drops what is no longer live there — a deleted or superseded entry
  is never returned, and the dropped rows are replaced by the next round. A write the query index does not show
  yet is missed by search, the content dedupe and the delete cascade until it does (the OpenSearch adapter's
  journal is not reproduced: ``recent_writes`` is empty).
* **Metadata** (2 KB filterable, 40 KB in all, keys in :mod:`mneme.adapters.s3vectors.entries`); entries over
  either limit are refused with InvalidInput before the call. Updates rewrite the whole vector (PutVectors with
  the same key overwrites), reading its data back with ``GetVectors(returnData=True)``.
* **No keyword leg.** The service's full-text search (``queryTexts``, BM25, ENHANCED only) ranks with the
  statistics of the whole index — every user's — which mneme's keyword scoring refuses (issue 30.3,
  :mod:`mneme.memory.keyword_scoring`), and it cannot count the caller's documents. So ``keyword_search`` is
  ``[]``, ``keyword_matches`` finds nothing and ``adjacent`` reads no conversation: **hybrid retrieval is vector
  only** on this backend (``keyword_search_available = False``); what that costs in recall on the memory bench
  is for the backend's owner to measure and decide.
* **Listings** (``list_documents``, ``namespace_counts``, ``iter_owned``, ``iter_authored``, the purge) read the
  index with ListVectors, ``segmentCount`` segments of up to 1,000 vectors a page: one request per 1,000 vectors
  of the whole index, not of the namespace (no ListVectors filter) — fine at 10k memories, slow at millions.

Errors of the service and of the transport are MemoryUnavailable (degraded mode, SPEC §5.3).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.adapters.s3vectors.entries import (
    CASCADE_IDS,
    MAX_GET,
    MAX_TOP_K,
    MAX_WRITE,
    Hit,
    any_vector,
    cosine_similarity,
    derived_filter,
    duplicates_filter,
    excluding,
    from_vector,
    live_filter,
    live_now,
    to_vector,
)
from mneme.adapters.s3vectors.lifecycle import S3VectorsLifecycle
from mneme.errors import MemoryUnavailable, NotFound
from mneme.models.memory import MemoryCandidate, MemoryDocument
from mneme.observability import traced

_Key = tuple[str, str]  # (namespace, content hash) of a whole entry, or (namespace, "chunk:<id>")


class S3VectorsMemoryStore(S3VectorsLifecycle):
    """:class:`mneme.ports.memory.MemoryStore` on one S3 Vectors index; the botocore client is injected."""

    keyword_search_available = False

    def __init__(
        self, client: Any, *, bucket: str, index: str, dimension: int, verify_queries: bool = True, segments: int = 4
    ) -> None:
        self._client = client
        self._target = {"vectorBucketName": bucket, "indexName": index}
        self._dimension = dimension
        self._verify = verify_queries
        self._segments = segments

    # ------------------------------------------------------------------------------------------- plumbing
    def _call(self, operation: str, **params: Any) -> dict[str, Any]:
        """One S3 Vectors call; every failure of the service or the transport is MemoryUnavailable."""
        try:
            answer: dict[str, Any] = getattr(self._client, operation)(**self._target, **params)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise MemoryUnavailable(
                f"S3 Vectors {operation} failed: {error.get('Code')}: {error.get('Message')}"
            ) from exc
        except BotoCoreError as exc:
            raise MemoryUnavailable(f"S3 Vectors {operation} failed: {exc}") from exc
        return answer

    def _get(self, keys: Sequence[str], *, data: bool = False) -> dict[str, tuple[MemoryDocument, list[float]]]:
        """Entries by key (100 a call), with their vectors when ``data``; missing keys are absent."""
        unique = list(dict.fromkeys(keys))
        found: dict[str, tuple[MemoryDocument, list[float]]] = {}
        for start in range(0, len(unique), MAX_GET):
            answer = self._call(
                "get_vectors", keys=unique[start : start + MAX_GET], returnMetadata=True, returnData=data
            )
            for item in answer.get("vectors", []):
                vector = [float(x) for x in item.get("data", {}).get("float32", [])]
                found[item["key"]] = (from_vector(item["key"], item["metadata"]), vector)
        return found

    def _put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> None:
        elements = [to_vector(doc, vector) for doc, vector in items]
        for start in range(0, len(elements), MAX_WRITE):
            self._call("put_vectors", vectors=elements[start : start + MAX_WRITE])

    def _delete(self, keys: Sequence[str]) -> None:
        for start in range(0, len(keys), MAX_WRITE):
            self._call("delete_vectors", keys=list(keys[start : start + MAX_WRITE]))

    def _query(self, vector: Sequence[float], flt: dict[str, Any], k: int, keep: Any = None) -> list[Hit]:
        """The ``k`` nearest vectors matching ``flt`` (and ``keep`` on a fresh read), in rounds of ``topK`` ≤ 100."""
        out: list[Hit] = []
        seen: list[str] = []
        while len(out) < k:
            ask = min(MAX_TOP_K, k - len(out))
            answer = self._call(
                "query_vectors",
                topK=ask,
                queryVector={"float32": [float(x) for x in vector]},
                filter=excluding(flt, seen),
                queryMode="ENHANCED",
                returnDistance=True,
                returnMetadata=not self._verify,
            )
            rows = answer.get("vectors", [])
            seen += [row["key"] for row in rows]
            fresh = self._get([row["key"] for row in rows]) if self._verify else {}
            for row in rows:
                doc = fresh[row["key"]][0] if self._verify and row["key"] in fresh else None
                if not self._verify:
                    doc = from_vector(row["key"], row["metadata"])
                if doc is not None and (keep is None or keep(doc)):
                    out.append(Hit(row["key"], doc, cosine_similarity(row["distance"])))
            if len(rows) < ask:
                break
        return out[:k]

    def _all(self, flt: dict[str, Any], keep: Any) -> list[MemoryDocument]:
        """Every vector matching ``flt`` (a filter-only query, any query vector), rechecked by ``keep``."""
        return [hit.document for hit in self._query(any_vector(self._dimension), flt, 10**9, keep)]

    def _found(self, doc_id: str, namespace: str, *, data: bool = False) -> tuple[MemoryDocument, list[float]]:
        """A stored, not deleted entry of ``namespace`` (else NotFound)."""
        found = self._get([doc_id], data=data).get(doc_id)
        if found is None or found[0].namespace != namespace or found[0].deleted:
            raise NotFound(f"memory entry {doc_id!r} not found in {namespace!r}")
        return found

    # --------------------------------------------------------------------------------------------- port
    @traced("s3vectors.query")
    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        if not patterns or k <= 0:
            return []
        from mneme.namespace_grammar import matches

        def keep(doc: MemoryDocument) -> bool:  # the same filter, on a fresh read of the hit
            return live_now(doc, now) and any(matches(p, doc.namespace) for p in patterns)

        hits = self._query(vector, live_filter(patterns, now), k, keep)
        return [MemoryCandidate(document=h.document, similarity=h.similarity or 0.0) for h in hits]

    @traced("s3vectors.put")
    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        if not items:
            return []
        existing = self._live_duplicates([doc for doc, _ in items])
        pending: dict[_Key, tuple[MemoryDocument, Sequence[float]]] = {}
        ids: list[str] = []
        for doc, vector in items:  # identical content (stored or earlier in the batch) is refreshed
            key = (doc.namespace, doc.content_hash if doc.chunk_count is None else f"chunk:{doc.id}")
            base = pending[key][0] if key in pending else existing.get(key, doc)
            merged = base.model_copy(
                update={
                    "tags": list(dict.fromkeys([*base.tags, *doc.tags])),
                    "derived_from": list(dict.fromkeys([*base.derived_from, *doc.derived_from])),
                    "updated_at": doc.updated_at,
                    "expires_at": doc.expires_at,
                }
            )
            pending[key] = (merged, vector)
            ids.append(merged.id)
        self._put(list(pending.values()))  # an id written again (a retry) overwrites its own vector
        return ids

    def _live_duplicates(self, docs: Sequence[MemoryDocument]) -> dict[_Key, MemoryDocument]:
        """Stored live whole entries with the namespace and content hash of one of ``docs`` (not expired at the
        newer entry's time)."""
        whole = {(d.namespace, d.content_hash): d.updated_at for d in docs if d.chunk_count is None}
        if not whole:
            return {}
        flt = duplicates_filter([ns for ns, _ in whole], [h for _, h in whole])
        found: dict[_Key, MemoryDocument] = {}
        for old in self._all(flt, lambda d: not d.deleted and not d.superseded and d.chunk_count is None):
            key = (old.namespace, old.content_hash)
            stale = old.expires_at is not None and key in whole and old.expires_at <= whole[key]
            if key in whole and not stale and key not in found:
                found[key] = old
        return found

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None:
        try:
            return self._found(doc_id, namespace)[0]
        except NotFound:
            return None

    def find(self, doc_id: str) -> MemoryDocument | None:
        found = self._get([doc_id]).get(doc_id)
        return found[0] if found is not None and not found[0].deleted else None

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        found = self._get(doc_ids) if doc_ids else {}
        return [found[i][0] for i in dict.fromkeys(doc_ids) if i in found]

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
        doc, stored = self._found(doc_id, namespace, data=vector is None)
        change: dict[str, Any] = {"updated_at": now}
        if content is not None:
            change |= {"content": content, "content_hash": hashlib.sha256(content.encode()).hexdigest()}
        if tags is not None:
            change["tags"] = list(tags)
        updated = doc.model_copy(update=change)
        self._put([(updated, vector if vector is not None else stored)])
        return updated

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        self._found(doc_id, namespace)
        marked = [doc_id, *self._cascade(doc_id)]
        with_data = self._get(marked, data=True)
        changed = [
            (doc.model_copy(update={"deleted": True, "updated_at": now}), vector)
            for doc, vector in (with_data[i] for i in marked if i in with_data)
        ]
        self._put(changed)
        return [doc.id for doc, _ in changed]

    def _cascade(self, doc_id: str) -> list[str]:
        """The live entries derived from ``doc_id``, transitively, oldest first per round."""
        marked: list[str] = []
        frontier = [doc_id]
        while frontier:
            found: dict[str, MemoryDocument] = {}
            for start in range(0, len(frontier), CASCADE_IDS):
                part = frontier[start : start + CASCADE_IDS]
                found |= {d.id: d for d in self._all(derived_filter(part), _derived_from(part))}
            docs = sorted(found.values(), key=lambda d: (d.created_at, d.id))
            frontier = [d.id for d in docs if d.id not in marked and d.id != doc_id]
            marked += frontier
        return marked

    def derived_ids(self, doc_id: str) -> list[str]:
        return self._cascade(doc_id)

    def hard_delete(self, ids: Sequence[str]) -> int:
        stored = list(self._get(ids)) if ids else []
        self._delete(stored)
        return len(stored)


def _derived_from(ids: Sequence[str]) -> Any:
    """The cascade's filter on a fresh read: not deleted, derived from one of ``ids``."""
    wanted = set(ids)
    return lambda doc: not doc.deleted and bool(wanted & set(doc.derived_from))
