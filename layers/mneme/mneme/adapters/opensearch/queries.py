"""The pure request and mapping helpers of the OpenSearch memory store (no client, no I/O).

* Patterns are term filters: an exact namespace is a ``terms`` on ``namespace``; ``vector.user.alice.*``
  is a ``terms`` on ``namespace_prefixes`` (each dotted prefix of the namespace, ending in a dot), so a
  prefix stops at a segment boundary (``vector.user.al.*`` never matches ``vector.user.alice.memory``).
  The filter goes **inside** the ``knn`` clause (efficient filtering, never post-filtering).
* Scores: faiss ``innerproduct`` has ``d = -ip`` and ``score = 1/(1+d)`` for ``d >= 0``, ``1-d`` for
  ``d < 0`` (OpenSearch docs, "k-NN spaces"): ``1+ip`` for ``ip > 0``, ``1/(1-ip)`` otherwise.
  :func:`score_to_similarity` inverts it (the cosine, as vectors are normalized).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mneme.errors import MemoryUnavailable
from mneme.models.memory import MemoryCandidate, MemoryClass, MemoryDocument, default_class

if TYPE_CHECKING:
    from collections.abc import Mapping

METADATA_KEYWORDS = ("source", "agent_id", "task_id", "chat_id", "session_id", "run_id", "user_id")
_KEYWORDS = ("memory_id", "namespace", "namespace_prefixes", "owner_user_id", "content_hash", "tags")
# The lifecycle fields (issue 13.1): new keyword / date / integer fields are additive, so an index created
# before them gets them with one ``PUT <index>/_mapping`` of :func:`lifecycle_mapping` (ensure_index does it);
# documents indexed before carry none of them and read with the model's defaults.
_LIFECYCLE_KEYWORDS = ("memory_class", "authority", "superseded_by", "parent_id")
_LIFECYCLE_DATES = ("observed_at",)
_LIFECYCLE_INTEGERS = ("chunk_index", "chunk_count", "content_chars")  # content_chars: keyword statistics
_DATES = ("created_at", "updated_at", "expires_at", *_LIFECYCLE_DATES)
#: the ``source`` values whose entries are of a class by default (entries stored without ``memory_class``)
_SOURCES_OF: dict[str, tuple[str, ...]] = {"episodic": ("run_input", "run_output", "auto_write"), "document": ("http",)}
_HNSW = {"ef_construction": 128, "m": 16}
#: the content, and its words by stem (``content.words``, the built-in ``english`` analyzer: possessive, lower case,
#: Porter stem; its stop words are all mneme's own): mneme counts a question's words by Porter stem, and "name" found
#: no "named" with the standard analyzer alone, nor counted it (the embedded store's FTS5 does). An index from before
#: gets the sub-field with :func:`lifecycle_mapping`; its documents indexed before are found by their exact words
_CONTENT = {"type": "text", "fields": {"words": {"type": "text", "analyzer": "english"}}}
_ISO_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def index_body(dimension: int) -> dict[str, Any]:
    """Settings and mapping of the memory index (faiss HNSW, inner product on normalized vectors)."""
    hnsw = {"name": "hnsw", "engine": "faiss", "space_type": "innerproduct", "parameters": _HNSW}
    properties: dict[str, Any] = {
        "embedding": {"type": "knn_vector", "dimension": dimension, "method": hnsw},
        "metadata": {"type": "object", "enabled": False},
        **{name: {"type": "keyword"} for name in (*_KEYWORDS, "derived_from", *METADATA_KEYWORDS)},
        **{name: {"type": "date"} for name in ("created_at", "updated_at", "expires_at")},
        **{name: {"type": "boolean"} for name in ("deleted", "superseded")},
        **lifecycle_mapping()["properties"],
    }
    return {"settings": {"index": {"knn": True}}, "mappings": {"dynamic": False, "properties": properties}}


def lifecycle_mapping() -> dict[str, Any]:
    """The fields added by the lifecycle (``PUT <index>/_mapping`` body for an index from before), and the content's
    words by stem (:data:`_CONTENT`)."""
    properties: dict[str, Any] = {"content": _CONTENT}
    properties |= {name: {"type": "keyword"} for name in _LIFECYCLE_KEYWORDS}
    properties |= {name: {"type": "date"} for name in _LIFECYCLE_DATES}
    properties |= {name: {"type": "integer"} for name in _LIFECYCLE_INTEGERS}
    return {"properties": properties}


def keyword_matches_query(words: Sequence[str], patterns: Sequence[str], limit: int, now: datetime) -> dict[str, Any]:
    """The keyword leg's one request: the documents containing a word (``post_filter``: they are the hits) and,
    in aggregations over every live document of ``patterns`` (computed before the ``post_filter``), their
    number, total length and each word's document frequency — the caller's statistics, not the index's."""

    def has(word: str) -> dict[str, Any]:  # by stem, or by the exact word in a document indexed before content.words
        by = [{"match": {field: {"query": word}}} for field in ("content.words", "content")]
        return {"bool": {"should": by, "minimum_should_match": 1}}

    return {
        "size": limit,
        "_source": {"excludes": ["embedding"]},
        "query": {"bool": {"filter": [namespace_filter(patterns), *live_filter(now)]}},
        "post_filter": {"bool": {"should": [has(w) for w in words], "minimum_should_match": 1}},
        "sort": [{"created_at": "desc"}, {"memory_id": "desc"}],
        "aggs": {
            "documents": {"value_count": {"field": "memory_id"}},
            "chars": {"sum": {"field": "content_chars"}},
            "df": {"filters": {"filters": {w: has(w) for w in words}}},
        },
    }


def adjacent_queries(doc: MemoryDocument, span: int, now: datetime) -> list[dict[str, Any]]:
    """The two searches (before, after) of :meth:`adjacent` for one document: its namespace's live documents
    written just before and after it (``created_at``, then ``memory_id``: write order)."""
    bodies = []
    for op, order in (("lt", "desc"), ("gt", "asc")):
        moment = iso_utc(doc.created_at)
        earlier = {"range": {"created_at": {op: moment}}}
        same = {"bool": {"filter": [{"term": {"created_at": moment}}, {"range": {"memory_id": {op: doc.id}}}]}}
        side = {"bool": {"should": [earlier, same], "minimum_should_match": 1}}
        bodies.append(
            {
                "size": span,
                "_source": {"excludes": ["embedding"]},
                "query": {"bool": {"filter": [{"term": {"namespace": doc.namespace}}, *live_filter(now), side]}},
                "sort": [{"created_at": order}, {"memory_id": order}],
            }
        )
    return bodies


def namespace_prefixes(namespace: str) -> list[str]:
    """``vector.user.alice.memory`` → ``["vector.", "vector.user.", "vector.user.alice."]``."""
    return [namespace.rsplit(".", i)[0] + "." for i in range(namespace.count("."), 0, -1)]


def iso_utc(moment: datetime | None) -> str | None:
    """Fixed-width UTC text (microseconds, ``Z``; naive is UTC): string order equals time order."""
    utc = moment and moment.replace(tzinfo=moment.tzinfo or UTC).astimezone(UTC)
    return utc.strftime(_ISO_FORMAT) if utc else None


def namespace_filter(patterns: Sequence[str]) -> dict[str, Any]:
    exact = sorted({p for p in patterns if not p.endswith(".*")})
    prefixes = sorted({p[:-1] for p in patterns if p.endswith(".*")})
    pairs = (("namespace", exact), ("namespace_prefixes", prefixes))
    return {"bool": {"should": [{"terms": {f: v}} for f, v in pairs if v], "minimum_should_match": 1}}


def live_filter(now: datetime) -> list[dict[str, Any]]:
    """Not deleted, not superseded, not expired (``expires_at`` missing or later than ``now``)."""
    missing = {"bool": {"must_not": [{"exists": {"field": "expires_at"}}]}}
    later = {"range": {"expires_at": {"gt": iso_utc(now)}}}
    not_expired = {"bool": {"should": [missing, later], "minimum_should_match": 1}}
    return [{"term": {"deleted": False}}, {"term": {"superseded": False}}, not_expired]


def knn_query(vector: Sequence[float], patterns: Sequence[str], k: int, now: datetime) -> dict[str, Any]:
    """The search body: efficient k-NN filtering (the filter inside the knn clause), ``size == k``."""
    flt = {"bool": {"filter": [namespace_filter(patterns), *live_filter(now)]}}
    return {
        "size": k,
        "_source": {"excludes": ["embedding"]},
        "query": {"knn": {"embedding": {"vector": [float(x) for x in vector], "k": k, "filter": flt}}},
    }


def score_to_similarity(score: float) -> float:
    """Invert the faiss inner-product score: ``1 + ip`` (ip >= 0) or ``1 / (1 - ip)`` (ip < 0)."""
    if score >= 1.0:
        return score - 1.0
    return 1.0 - 1.0 / score if score > 0 else -1.0


def to_source(doc: MemoryDocument, vector: Sequence[float]) -> dict[str, Any]:
    """The stored document: the model's fields (``id`` → ``memory_id``), prefixes, metadata keywords."""
    source = doc.model_dump(mode="json", exclude={"id"})
    source |= {"memory_id": doc.id, "namespace_prefixes": namespace_prefixes(doc.namespace)}
    source |= {key: value for key, value in doc.metadata.items() if key in METADATA_KEYWORDS}
    source |= {name: iso_utc(getattr(doc, name)) for name in _DATES}
    source["content_chars"] = len(doc.content)
    source["embedding"] = [float(x) for x in vector]
    return source


def from_source(source: Mapping[str, Any]) -> MemoryDocument:
    """A stored document; one indexed before the lifecycle fields gets the defaults (class by its source)."""
    fields = {name: source[name] for name in MemoryDocument.model_fields if source.get(name) is not None}
    if "memory_class" not in fields:
        fields["memory_class"] = default_class((source.get("metadata") or {}).get("source"))
    return MemoryDocument.model_validate({**fields, "id": source["memory_id"]})


def scan_body(clauses: list[dict[str, Any]], size: int, after: list[Any] | None) -> dict[str, Any]:
    """One page of a filtered listing in ``memory_id`` order, continued with ``search_after``."""
    body: dict[str, Any] = {
        "size": size,
        "_source": {"excludes": ["embedding"]},
        "sort": [{"memory_id": "asc"}],
        "query": {"bool": {"filter": clauses}},
    }
    if after is not None:
        body["search_after"] = after
    return body


def class_clause(memory_class: MemoryClass) -> dict[str, Any]:
    """Entries of ``memory_class``: stored with it, or stored without a class by a source it is the default of."""
    sources = _SOURCES_OF.get(memory_class)
    unset: dict[str, Any] = {"bool": {"must_not": [{"exists": {"field": "memory_class"}}]}}
    if sources is None:  # semantic: every other source, or none
        others = [s for group in _SOURCES_OF.values() for s in group]
        unset["bool"]["must_not"].append({"terms": {"source": others}})
    else:
        unset["bool"]["filter"] = [{"terms": {"source": list(sources)}}]
    return {"bool": {"should": [{"term": {"memory_class": memory_class}}, unset], "minimum_should_match": 1}}


def expired_filter(now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> dict[str, Any]:
    """Entries expired at ``now`` (their ``expires_at``) or older than their class's cutoff."""
    should: list[dict[str, Any]] = [{"range": {"expires_at": {"lte": iso_utc(now)}}}]
    for memory_class, cutoff in cutoffs.items():
        older = {"range": {"created_at": {"lt": iso_utc(cutoff)}}}
        should.append({"bool": {"filter": [class_clause(memory_class), older]}})
    return {"bool": {"should": should, "minimum_should_match": 1}}


def parse_hits(response: Mapping[str, Any]) -> list[MemoryCandidate]:
    """Search response → candidates, best first, similarity recovered from ``_score``."""
    return [
        MemoryCandidate(document=from_source(hit["_source"]), similarity=score_to_similarity(hit["_score"]))
        for hit in response.get("hits", {}).get("hits", [])
    ]


def bulk_rejected(result: Mapping[str, Any]) -> None:
    """MemoryUnavailable naming how many items of a ``_bulk`` answer failed, and the first reason."""
    if result.get("errors"):
        errors = [next(iter(item.values())).get("error") for item in result.get("items", [])]
        failed = [error for error in errors if error]
        first = failed[0] if failed else None
        raise MemoryUnavailable(f"OpenSearch bulk write rejected {len(failed)} of {len(errors)} items: {first}")
