"""The OpenSearch store's keyword leg and lifecycle operations (a mixin of :class:`OpenSearchMemoryStore`).

* :meth:`keyword_matches`: the documents whose ``content`` matches a word, with the namespace / liveness
  filter in ``bool.filter`` — the same filter as the k-NN leg — and the statistics of the filtered set in
  aggregations; OpenSearch's own BM25 is not used (its statistics are the index's, every user's), the score is
  computed in :mod:`mneme.memory.keyword_scoring` with the caller's.
* :meth:`adjacent`: the documents written around one in its namespace (one ``_msearch``). The two legs are
  fused in code (``mneme.memory.fusion``): OpenSearch Serverless documents the ``hybrid`` query with a
  normalization search pipeline (min_max / l2 with arithmetic, geometric or harmonic mean) but no
  reciprocal-rank fusion, and a pipeline is one more deploy-time resource; two queries fused in code give
  every store the same fusion and the benchmark's figures hold for all of them.
* :meth:`list_documents`: ``sort`` by ``created_at``, ``memory_id`` descending, the cursor a range filter.
* :meth:`namespace_counts`: one ``terms`` aggregation on ``namespace`` per status.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from mneme.adapters.opensearch.queries import (
    adjacent_queries,
    from_source,
    iso_utc,
    keyword_matches_query,
    namespace_filter,
    to_source,
)
from mneme.memory.keyword_scoring import KeywordSearch
from mneme.memory.lifecycle import decode_cursor, encode_cursor, from_micros, refreshed_fields
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryDocument

_STATUS = {
    "active": [{"term": {"deleted": False}}, {"term": {"superseded": False}}],
    "superseded": [{"term": {"deleted": False}}, {"term": {"superseded": True}}],
    "deleted": [{"term": {"deleted": True}}],
}


def _hits(answer: dict[str, Any]) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = answer.get("hits", {}).get("hits", [])
    return hits


class OpenSearchLifecycle(KeywordSearch):
    """Needs the host store's query, bulk and journal helpers (declared here for the type checker only)."""

    if TYPE_CHECKING:

        def _search(self, body: dict[str, Any], action: str, *, knn: bool = False) -> list[dict[str, Any]]: ...

        def _query(self, clauses: list[dict[str, Any]], size: int = 10_000) -> list[dict[str, Any]]: ...

        def _find(self, doc_id: str, namespace: str) -> tuple[str, MemoryDocument]: ...

        def _bulk(self, actions: list[dict[str, Any]]) -> dict[str, Any]: ...

        def _update_action(self, os_id: str, doc: dict[str, Any]) -> list[dict[str, Any]]: ...

        def _raw(self, body: dict[str, Any]) -> dict[str, Any]: ...

        def _multi(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]: ...

        def _note(self, docs: Sequence[tuple[MemoryDocument, str]], status: str) -> None: ...

        def _hidden(self, candidates: list[MemoryCandidate]) -> list[MemoryCandidate]: ...

    def keyword_matches(
        self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
    ) -> KeywordMatches:
        if not patterns or not words:
            return KeywordMatches(documents=[], total_documents=0, total_chars=0, doc_freq={})
        answer = self._raw(keyword_matches_query(words, patterns, limit, now))
        aggregations = answer.get("aggregations", {})
        buckets = aggregations.get("df", {}).get("buckets", {})
        found = [MemoryCandidate(document=from_source(h["_source"]), similarity=0.0) for h in _hits(answer)]
        hits = self._hidden(found)
        return KeywordMatches(
            documents=[hit.document for hit in hits],
            total_documents=int(aggregations.get("documents", {}).get("value") or 0),
            total_chars=int(aggregations.get("chars", {}).get("value") or 0),
            doc_freq={w: int(buckets.get(w, {}).get("doc_count", 0)) for w in words},
        )

    def adjacent(
        self, documents: Sequence[MemoryDocument], span: int, *, now: datetime
    ) -> dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]:
        if span <= 0 or not documents:
            return {}
        lines: list[dict[str, Any]] = []
        for doc in documents:
            for body in adjacent_queries(doc, span, now):
                lines += [{}, body]
        answers = self._multi(lines)
        around: dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]] = {}
        for at, doc in enumerate(documents):
            before, after = ([from_source(h["_source"]) for h in _hits(a)] for a in answers[2 * at : 2 * at + 2])
            around[doc.id] = (before[::-1], after)
        return around

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
        os_id, doc = self._find(doc_id, namespace)
        by = superseded_by if status == "superseded" else None
        change: dict[str, Any] = {"superseded": status == "superseded", "superseded_by": by, "updated_at": now}
        if authority is not None:
            change["authority"] = authority
        self._bulk(self._update_action(os_id, change | {"updated_at": iso_utc(now)}))
        self._note([(doc, os_id)], status)
        return doc.model_copy(update=change)

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        os_id, old = self._find(doc_id, namespace)
        doc = old.model_copy(update=refreshed_fields(old, newer))
        source = to_source(doc, [])
        body = {name: source[name] for name in ("tags", "derived_from", "updated_at", "expires_at", "observed_at")}
        self._bulk(self._update_action(os_id, body | {"metadata": doc.metadata}))
        return doc

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        clauses: list[dict[str, Any]] = [{"term": {"namespace": namespace}}]
        clauses += _STATUS.get(status or "", [{"term": {"deleted": False}}])
        after = decode_cursor(cursor)
        if after is not None:
            at = iso_utc(from_micros(after[0]))
            older = {"range": {"created_at": {"lt": at}}}
            same = {"bool": {"filter": [{"term": {"created_at": at}}, {"range": {"memory_id": {"lt": after[1]}}}]}}
            clauses.append({"bool": {"should": [older, same], "minimum_should_match": 1}})
        body = {
            "size": limit + 1,
            "_source": {"excludes": ["embedding"]},
            "sort": [{"created_at": "desc"}, {"memory_id": "desc"}],
            "query": {"bool": {"filter": clauses}},
        }
        docs = [from_source(hit["_source"]) for hit in self._search(body, "list")]
        page = docs[:limit]
        return page, encode_cursor(page[-1]) if len(docs) > limit and page else None

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        if not patterns:
            return {}
        counts: dict[str, dict[str, int]] = {}
        for status, clauses in _STATUS.items():
            body = {
                "size": 0,
                "query": {"bool": {"filter": [namespace_filter(patterns), *clauses]}},
                "aggs": {"namespaces": {"terms": {"field": "namespace", "size": 1000}}},
            }
            buckets = self._raw(body).get("aggregations", {}).get("namespaces", {}).get("buckets", [])
            for bucket in buckets:
                counts.setdefault(bucket["key"], {"active": 0, "superseded": 0, "deleted": 0})[status] = bucket[
                    "doc_count"
                ]
        return dict(sorted(counts.items()))

    def derived_ids(self, doc_id: str) -> list[str]:
        marked: list[str] = []
        frontier = [doc_id]
        while frontier:  # transitive, oldest first per round
            hits = self._query([{"terms": {"derived_from": frontier}}, {"term": {"deleted": False}}])
            docs = sorted((from_source(hit["_source"]) for hit in hits), key=lambda d: (d.created_at, d.id))
            frontier = [d.id for d in docs if d.id not in marked and d.id != doc_id]
            marked += frontier
        return marked
