"""The OpenSearch k-NN memory store (Serverless ``aoss`` vector collection or a managed ``es`` domain).

* Documents carry mneme's own ``memory_id``; on ``aoss`` (vector collections reject custom ``_id``) no
  ``_id`` is sent and updates address the service-assigned ``_id`` found by a term query.
* The index mapping, the k-NN query with its namespace and liveness filters, and the score → similarity
  mapping are pure helpers in :mod:`mneme.adapters.opensearch.queries`.
* ``aoss`` has no refresh: writes become visible to searches after the collection's refresh interval
  (60 s). With a :class:`~mneme.ports.memory.MemoryJournal` (DynamoDB, shared by every process) the adapter keeps
  each recent write's ``_id``, content hash and status: an entry written seconds ago is found by id
  (``GET _doc/<_id>`` is realtime) for update and delete, identical content inside the window refreshes
  it, and searches drop entries the journal knows were deleted or superseded since.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from mneme.adapters.opensearch.http import OpenSearchHTTPError, SignedOpenSearch
from mneme.adapters.opensearch.journaled import Found, OpenSearchJournaled
from mneme.adapters.opensearch.lifecycle import OpenSearchLifecycle
from mneme.adapters.opensearch.owned import OpenSearchOwned
from mneme.adapters.opensearch.queries import (
    bulk_rejected,
    from_source,
    index_body,
    iso_utc,
    knn_query,
    lifecycle_mapping,
    parse_hits,
    to_source,
)
from mneme.errors import MemoryUnavailable, NotFound
from mneme.models.memory import MemoryCandidate, MemoryDocument
from mneme.observability import traced
from mneme.ports.memory import MemoryJournal

Service = Literal["aoss", "es"]
_MAX_HITS = 10_000  # index.max_result_window default: one page for lookups and cascade rounds


def opensearch_client(endpoint: str, region: str, service: Service, credentials: Any) -> SignedOpenSearch:
    """A SigV4-signed client (``aoss`` for Serverless, ``es`` for a managed domain) on https 443."""
    host = endpoint.removeprefix("https://").removeprefix("http://").rstrip("/")
    return SignedOpenSearch(f"https://{host}", region=region, service=service, credentials=credentials, timeout=10)


class OpenSearchMemoryStore(OpenSearchJournaled, OpenSearchLifecycle, OpenSearchOwned):
    """:class:`mneme.ports.memory.MemoryStore` on an OpenSearch index; the client is injected."""

    def __init__(
        self,
        client: SignedOpenSearch,
        *,
        index: str,
        dimension: int,
        service: Service = "aoss",
        journal: MemoryJournal | None = None,
    ) -> None:
        self._client = client
        self._journal = journal
        self._index = index
        self._dimension = dimension
        self._service = service
        self._index_ready = False

    # ----------------------------------------------------------------------------------------- plumbing
    def _search(self, body: dict[str, Any], action: str, *, knn: bool = False) -> list[dict[str, Any]]:
        """Run a search; a missing index means nothing is stored yet (no hits)."""
        try:
            response = self._knn_search(body) if knn else self._client.search(index=self._index, body=body)
        except OpenSearchHTTPError as exc:
            if exc.status == 404 and exc.error == "index_not_found_exception":
                return []
            raise MemoryUnavailable(f"OpenSearch {action} failed: {exc}") from exc
        hits: list[dict[str, Any]] = response.get("hits", {}).get("hits", [])
        return hits

    def ensure_index(self) -> None:
        """Create the index with its mapping unless it exists (idempotent, cached per instance)."""
        if self._index_ready:
            return
        try:
            if not self._client.indices.exists(index=self._index):
                self._client.indices.create(index=self._index, body=index_body(self._dimension))
            else:  # an index from before the lifecycle fields: they are additive
                self._client.indices.put_mapping(index=self._index, body=lifecycle_mapping())
        except OpenSearchHTTPError as exc:  # "already exists": a concurrent cold start created it
            if not (exc.status == 400 and exc.error == "resource_already_exists_exception"):
                raise MemoryUnavailable(f"OpenSearch index creation failed: {exc}") from exc
        self._index_ready = True

    def _raw(self, body: dict[str, Any]) -> dict[str, Any]:
        """A search answered whole (aggregations); a missing index answers nothing."""
        try:
            result: dict[str, Any] = self._client.search(index=self._index, body=body)
        except OpenSearchHTTPError as exc:
            if exc.status == 404 and exc.error == "index_not_found_exception":
                return {}
            raise MemoryUnavailable(f"OpenSearch query failed: {exc}") from exc
        return result

    def _multi(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Several searches in one ``_msearch``; a missing index answers nothing to each."""
        try:
            result = self._client.msearch(index=self._index, body=lines)
        except OpenSearchHTTPError as exc:
            if exc.status == 404 and exc.error == "index_not_found_exception":
                return [{} for _ in lines[1::2]]
            raise MemoryUnavailable(f"OpenSearch query failed: {exc}") from exc
        responses: list[dict[str, Any]] = result.get("responses", [])
        if any("error" in r for r in responses):
            raise MemoryUnavailable(f"OpenSearch query failed: {next(r['error'] for r in responses if 'error' in r)}")
        return responses

    def _bulk(self, actions: list[dict[str, Any]], *, partial: bool = False) -> dict[str, Any]:
        """The ``_bulk`` answer; MemoryUnavailable when an item failed, unless ``partial`` (then the caller keeps
        what was done, and raises with :func:`bulk_rejected`)."""
        if not actions:
            return {}
        kwargs: dict[str, Any] = {} if self._service == "aoss" else {"refresh": "wait_for"}
        try:
            result = self._client.bulk(body=actions, **kwargs)
        except OpenSearchHTTPError as exc:
            raise MemoryUnavailable(f"OpenSearch bulk write failed: {exc}") from exc
        if not partial:
            bulk_rejected(result)
        return dict(result)

    def _query(self, clauses: list[dict[str, Any]], size: int = _MAX_HITS) -> list[dict[str, Any]]:
        body = {"size": size, "_source": {"excludes": ["embedding"]}, "query": {"bool": {"filter": clauses}}}
        return self._search(body, "query")

    def _find(self, doc_id: str, namespace: str) -> tuple[str, MemoryDocument]:
        """The ``_id`` and document of a stored, not deleted entry (else NotFound)."""
        clauses = [{"term": {"memory_id": doc_id}}, {"term": {"namespace": namespace}}]
        hits = self._query([*clauses, {"term": {"deleted": False}}], size=1)
        if not hits:
            journaled = self._journaled(doc_id)
            if journaled is not None and journaled[1].namespace == namespace:
                return journaled
            raise NotFound(f"memory entry {doc_id!r} not found in {namespace!r}")
        return hits[0]["_id"], from_source(hits[0]["_source"])

    def _update_action(self, os_id: str, doc: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"update": {"_index": self._index, "_id": os_id}}, {"doc": doc}]

    # ----------------------------------------------------------------------------------------- port
    @traced("opensearch.knn_search")
    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        if not patterns or k <= 0:
            return []
        hits = self._search(knn_query(vector, patterns, k, now), "k-NN search", knn=True)
        return self._hidden(parse_hits({"hits": {"hits": hits}}))

    def _knn_search(self, body: dict[str, Any]) -> dict[str, Any]:
        """The k-NN request itself (a seam: osmem-server cannot answer knn queries)."""
        result: dict[str, Any] = self._client.search(index=self._index, body=body)
        return result

    @traced("opensearch.bulk")
    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        if not items:
            return []
        self.ensure_index()
        existing = self._live_duplicates([doc for doc, _ in items])
        existing |= self._journaled_duplicates([doc for doc, _ in items], existing)
        pending: dict[tuple[str, str], tuple[str | None, dict[str, Any]]] = {}  # key → (_id, body)
        ids: list[str] = []
        for doc, vector in items:  # identical content (stored or earlier in the batch) is refreshed
            key = (doc.namespace, doc.content_hash if doc.chunk_count is None else f"chunk:{doc.id}")
            if key not in pending:
                os_id, old = existing.get(key, (None, doc))
                fields = {"memory_id": old.id, "tags": old.tags, "derived_from": old.derived_from}
                pending[key] = (os_id, to_source(doc, vector) if os_id is None else fields)
            body = pending[key][1]
            for name in ("tags", "derived_from"):  # merged, first seen first
                body[name] = list(dict.fromkeys([*body[name], *getattr(doc, name)]))
            body["updated_at"], body["expires_at"] = iso_utc(doc.updated_at), iso_utc(doc.expires_at)
            ids.append(body["memory_id"])
        actions: list[dict[str, Any]] = []
        created: list[MemoryDocument] = []
        stored = self._stored_ids([body["memory_id"] for os_id, body in pending.values() if os_id is None])
        for os_id, body in pending.values():
            if os_id is not None:  # a partial update of the stored entry (same memory_id)
                actions += self._update_action(os_id, body)
            elif body["memory_id"] in stored:  # the same id written again (a retry): rewritten, not indexed twice
                actions += self._update_action(stored[body["memory_id"]], body)
            else:  # vector collections (aoss) reject custom document ids
                meta = {"_index": self._index} | ({} if self._service == "aoss" else {"_id": body["memory_id"]})
                actions += [{"index": meta}, body]
                created.append(next(doc for doc, _ in items if doc.id == body["memory_id"]))
        # a partly failed bulk: the items it did index are journaled before the failure is raised, so the retry
        # (inside the refresh window, where searches miss them) finds them instead of indexing them again
        result = self._bulk(actions, partial=True)
        indexed = [next(iter(item.values())) for item in result.get("items", []) if "index" in item]
        done = [(doc, str(item["_id"])) for doc, item in zip(created, indexed, strict=False) if "error" not in item]
        self._note(done, "active")
        bulk_rejected(result)
        return ids

    def _stored_ids(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """``aoss`` only (elsewhere ``_id`` is the memory id): the ``_id`` of entries already stored under these
        memory ids — in the index, or in the journal inside the refresh window."""
        if self._service != "aoss" or not memory_ids:
            return {}
        hits = self._query([{"terms": {"memory_id": list(memory_ids)}}])
        found = {str(hit["_source"]["memory_id"]): str(hit["_id"]) for hit in hits}
        missing = [i for i in memory_ids if i not in found]
        if self._journal is not None and missing:
            found |= {doc_id: entry.native_id for doc_id, entry in self._journal.lookup(missing).items()}
        return found

    def _live_duplicates(self, docs: Sequence[MemoryDocument]) -> Found:
        """Stored live documents with the same namespace and content hash as one of ``docs``."""
        whole = [d for d in docs if d.chunk_count is None]  # a chunk is its document's own: never merged
        if not whole:
            return {}
        clauses: list[dict[str, Any]] = [
            {"terms": {"namespace": sorted({d.namespace for d in whole})}},
            {"terms": {"content_hash": sorted({d.content_hash for d in whole})}},
            {"term": {"deleted": False}},
            {"term": {"superseded": False}},
            {"bool": {"must_not": [{"exists": {"field": "chunk_count"}}]}},
        ]
        wanted = {(d.namespace, d.content_hash): d.updated_at for d in whole}
        found: Found = {}
        for hit in self._query(clauses):
            old = from_source(hit["_source"])
            key = (old.namespace, old.content_hash)
            expired = old.expires_at is not None and key in wanted and old.expires_at <= wanted[key]
            if key in wanted and not expired and key not in found:
                found[key] = (hit["_id"], old)
        return found

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None:
        try:
            return self._find(doc_id, namespace)[1]
        except NotFound:
            return None

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        if not doc_ids:
            return []
        found = {
            hit["_source"]["memory_id"]: from_source(hit["_source"])
            for hit in self._query([{"terms": {"memory_id": list(dict.fromkeys(doc_ids))}}])
        }
        return [found[i] for i in dict.fromkeys(doc_ids) if i in found]

    def find(self, doc_id: str) -> MemoryDocument | None:
        hits = self._query([{"term": {"memory_id": doc_id}}, {"term": {"deleted": False}}], size=1)
        if hits:
            return from_source(hits[0]["_source"])
        journaled = self._journaled(doc_id)
        return journaled[1] if journaled is not None else None

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
        os_id, doc = self._find(doc_id, namespace)
        change: dict[str, Any] = {"updated_at": now}
        if content is not None:
            change |= {"content": content, "content_hash": hashlib.sha256(content.encode()).hexdigest()}
        if tags is not None:
            change["tags"] = list(tags)
        body = change | {"updated_at": iso_utc(now)}
        if vector is not None:
            body["embedding"] = [float(x) for x in vector]
        self._bulk(self._update_action(os_id, body))
        return doc.model_copy(update=change)

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        os_id, root = self._find(doc_id, namespace)
        marked = {doc_id: (os_id, root)}  # memory_id → (_id, document)
        frontier = [doc_id]
        while frontier:  # transitive: entries derived from entries derived from ...
            hits = self._query([{"terms": {"derived_from": frontier}}, {"term": {"deleted": False}}])
            frontier = []
            for hit in hits:
                memory_id = hit["_source"]["memory_id"]
                if memory_id not in marked:
                    marked[memory_id] = (hit["_id"], from_source(hit["_source"]))
                    frontier.append(memory_id)
        change: dict[str, Any] = {"deleted": True, "updated_at": iso_utc(now)}
        self._bulk([line for os_id, _ in marked.values() for line in self._update_action(os_id, change)])
        self._note([(doc, os_id) for os_id, doc in marked.values()], "deleted")
        return list(marked)
