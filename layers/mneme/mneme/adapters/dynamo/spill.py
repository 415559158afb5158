"""Spill of large text (recorded model requests, checkpoints) over several items of one partition.

A DynamoDB item holds at most 400 KB. Text is stored as ASCII JSON (characters = bytes); up to
``CHUNK_CHARS`` (300,000) stays in the head item's ``data``; longer text is cut into chunk items
``<head SK>#<blob>#<n:04d>`` written first, and the head item (``chunks`` = count, ``blob`` = a fresh id) is
written last, so a reader never sees half a blob. Chunks of a replaced blob are deleted afterwards. Head and
chunks carry the same TTL value (:mod:`mneme.adapters.dynamo.ttl`), so they expire together.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable
from mneme.adapters.dynamo.ttl import stamp
from mneme.errors import StoreUnavailable

#: the longest text kept in one item; DynamoDB's item limit is 400 KB (keys and names included).
CHUNK_CHARS = 300_000


def encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))  # ASCII: characters == bytes


def blob_text(head: Item, items: Sequence[Item]) -> str:
    """The text of a blob from its head item and the chunk items under it."""
    chunks = int(head.get("chunks", 0))
    if not chunks:
        return str(head["data"])
    prefix = f"{head[SK]}#{head['blob']}#"
    parts = sorted((i for i in items if str(i[SK]).startswith(prefix)), key=lambda i: str(i[SK]))
    if len(parts) != chunks:
        raise StoreUnavailable(f"stored blob {head[SK]} is incomplete: {len(parts)} of {chunks} chunks")
    return "".join(str(p["data"]) for p in parts)


def write_blob(table: ItemTable, pk: str, sk: str, text: str, *, chunk: int, expires_at: int | None) -> None:
    """Write ``text`` under ``(pk, sk)``: one item, or chunks then the head; the replaced blob's chunks go."""
    previous = table.get(pk, sk)
    if len(text) <= chunk:
        table.put(stamp({PK: pk, SK: sk, "chunks": 0, "data": text}, expires_at))
    else:
        blob = uuid.uuid4().hex[:12]
        parts = [text[i : i + chunk] for i in range(0, len(text), chunk)]
        table.put_many(
            [stamp({PK: pk, SK: f"{sk}#{blob}#{n:04d}", "data": part}, expires_at) for n, part in enumerate(parts)]
        )
        table.put(stamp({PK: pk, SK: sk, "chunks": len(parts), "blob": blob}, expires_at))
    if previous is not None and previous.get("chunks"):
        stale = f"{sk}#{previous['blob']}#"
        table.delete_many([(pk, f"{stale}{n:04d}") for n in range(int(previous["chunks"]))])
