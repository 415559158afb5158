"""The pure mapping of the S3 Vectors memory store: a memory entry ↔ a vector's key, data and metadata, and the
metadata filters every read sends (no client, no I/O).

One entry is one vector whose **key is mneme's own id** (PutVectors with an existing key overwrites the vector
completely: S3 user guide, "Inserting vectors into a vector index"). Its metadata has two parts:

* **non-filterable** (declared at index creation, template ``MemoryIndex``): ``content`` (the text) and
  ``entry`` (the rest of the document as JSON) — the bulk of the 40 KB a vector may carry;
* **filterable** (at most 2 KB a vector; S3 user guide, "Limitations and restrictions"), short keys:
  ``ns`` namespace, ``nsp`` its ancestor prefixes (``["vector.", "vector.user.", "vector.user.alice."]``: S3
  Vectors has no prefix operator on CLASSIC indexes, so ``vector.user.alice.*`` is ``{"nsp": {"$eq":
  "vector.user.alice."}}`` — ``$eq`` on a list matches any element, S3 user guide, "Metadata filtering" — and a
  prefix stops at a segment boundary), ``id`` (the key again: keys are not filterable, and a query that must
  return more than ``topK`` excludes what it already has), ``own`` owner, ``uid`` writer, ``ch`` content
  hash, ``del`` / ``sup`` flags (always written: a filter never depends on a missing key), ``exp`` expiry and
  ``ca`` creation (µs since the epoch; absent ``exp`` = never), ``cls`` class, ``chunk`` (part of a long
  document), ``df`` the ids it was derived from (the delete cascade's filter).

Every filter is built from ``$and`` / ``$or`` / ``$eq`` / ``$in`` / ``$gt`` / ``$exists`` only, one operator
per object (the grammar of the "Metadata filtering" page).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mneme.errors import InvalidInput
from mneme.memory.lifecycle import micros
from mneme.models.memory import MemoryClass, MemoryDocument

NON_FILTERABLE = ("content", "entry")  # the template's MetadataConfiguration.NonFilterableMetadataKeys
FILTERABLE_LIMIT = 2048  # bytes of filterable metadata per vector
METADATA_LIMIT = 40 * 1024  # bytes of metadata per vector, both kinds
MAX_TOP_K = 100  # QueryVectors topK
MAX_GET = 100  # keys per GetVectors
MAX_WRITE = 500  # vectors per PutVectors, keys per DeleteVectors
MAX_LIST = 1000  # vectors per ListVectors page
CASCADE_IDS = 50  # ids per cascade query: an ENHANCED query takes at most 100 filter constraints
_IN_ENTRY = ("content", "id")  # stored elsewhere (the ``content`` key, the vector key)


@dataclass(frozen=True)
class Hit:
    """One vector read back: its key, its entry, and its cosine similarity to the query (queries only)."""

    key: str
    document: MemoryDocument
    similarity: float | None = None


def size_of(value: Any) -> int:
    """The bytes a metadata value takes, as JSON (UTF-8, compact)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def namespace_prefixes(namespace: str) -> list[str]:
    """``vector.user.alice.memory`` → ``["vector.", "vector.user.", "vector.user.alice."]``."""
    return [namespace.rsplit(".", i)[0] + "." for i in range(namespace.count("."), 0, -1)]


def filterable(doc: MemoryDocument) -> dict[str, Any]:
    """The filterable part of an entry's metadata (see the module docstring)."""
    meta: dict[str, Any] = {
        "ns": doc.namespace,
        "nsp": namespace_prefixes(doc.namespace),
        "id": doc.id,
        "own": doc.owner_user_id,
        "ch": doc.content_hash,
        "del": doc.deleted,
        "sup": doc.superseded,
        "ca": micros(doc.created_at),
        "cls": doc.memory_class,
        "chunk": doc.chunk_count is not None,
    }
    writer = doc.metadata.get("user_id")
    if isinstance(writer, str) and writer:
        meta["uid"] = writer
    if doc.expires_at is not None:
        meta["exp"] = micros(doc.expires_at)
    if doc.derived_from:
        meta["df"] = list(doc.derived_from)
    return meta


def to_vector(doc: MemoryDocument, vector: Sequence[float]) -> dict[str, Any]:
    """The PutVectors element of an entry; InvalidInput when it exceeds the service's metadata limits."""
    meta = filterable(doc)
    if size_of(meta) > FILTERABLE_LIMIT:
        raise InvalidInput(
            f"memory entry {doc.id!r} needs more than S3 Vectors' {FILTERABLE_LIMIT} bytes of filterable metadata "
            f"(derived from {len(doc.derived_from)} entries)",
            field="derived_from",
        )
    entry = doc.model_dump(mode="json", exclude=set(_IN_ENTRY))
    meta |= {"content": doc.content, "entry": json.dumps(entry, separators=(",", ":"), ensure_ascii=False)}
    if size_of(meta) > METADATA_LIMIT:
        raise InvalidInput(
            f"memory entry {doc.id!r} is larger than the {METADATA_LIMIT} bytes S3 Vectors keeps with a vector",
            field="content",
        )
    return {"key": doc.id, "data": {"float32": [float(x) for x in vector]}, "metadata": meta}


def from_vector(key: str, metadata: Mapping[str, Any]) -> MemoryDocument:
    """The entry a vector's metadata holds."""
    fields = json.loads(metadata["entry"])
    return MemoryDocument.model_validate({**fields, "id": key, "content": metadata["content"]})


def live_now(doc: MemoryDocument, now: datetime) -> bool:
    """What :func:`live_filter` keeps, evaluated on a document (a fresh read rechecks a query's hits)."""
    return not doc.deleted and not doc.superseded and (doc.expires_at is None or doc.expires_at > now)


def namespace_filter(patterns: Sequence[str]) -> dict[str, Any]:
    """One of ``patterns``: exact namespaces by ``ns``, ``….*`` by a prefix in ``nsp``."""
    exact = sorted({p for p in patterns if not p.endswith(".*")})
    prefixes = sorted({p[:-1] for p in patterns if p.endswith(".*")})
    legs: list[dict[str, Any]] = [{"ns": {"$in": exact}}] if exact else []
    legs += [{"nsp": {"$eq": prefix}} for prefix in prefixes]  # $eq on a list: any element (documented)
    return legs[0] if len(legs) == 1 else {"$or": legs}


def live_filter(patterns: Sequence[str], now: datetime) -> dict[str, Any]:
    """The search filter: one of ``patterns``, not deleted, not superseded, not expired at ``now``."""
    not_expired = {"$or": [{"exp": {"$exists": False}}, {"exp": {"$gt": micros(now)}}]}
    return {"$and": [namespace_filter(patterns), {"del": {"$eq": False}}, {"sup": {"$eq": False}}, not_expired]}


def duplicates_filter(namespaces: Sequence[str], hashes: Sequence[str]) -> dict[str, Any]:
    """Live whole entries (not chunks) with one of these namespaces and content hashes."""
    return {
        "$and": [
            {"ns": {"$in": sorted(set(namespaces))}},
            {"ch": {"$in": sorted(set(hashes))}},
            {"del": {"$eq": False}},
            {"sup": {"$eq": False}},
            {"chunk": {"$eq": False}},
        ]
    }


def derived_filter(ids: Sequence[str]) -> dict[str, Any]:
    """Entries not deleted that were derived from one of ``ids`` (at most :data:`CASCADE_IDS` a query)."""
    derived = [{"df": {"$eq": i}} for i in sorted(set(ids))]
    return {"$and": [derived[0] if len(derived) == 1 else {"$or": derived}, {"del": {"$eq": False}}]}


def excluding(base: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """``base`` without the vectors already read (a query continued past ``topK``)."""
    return dict(base) if not keys else {"$and": [dict(base), {"id": {"$nin": list(keys)}}]}


def expired(doc: MemoryDocument, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> bool:
    """Expired at ``now``, or created before its class's retention cutoff."""
    if doc.expires_at is not None and doc.expires_at <= now:
        return True
    cutoff = cutoffs.get(doc.memory_class)
    return cutoff is not None and doc.created_at < cutoff


def cosine_similarity(distance: float) -> float:
    """S3 Vectors' cosine distance is ``1 - cos``."""
    return 1.0 - float(distance)


def any_vector(dimension: int) -> list[float]:
    """A unit query vector for a query that only filters (the order of its results does not matter)."""
    return [1.0] + [0.0] * (dimension - 1) if dimension > 0 else []
