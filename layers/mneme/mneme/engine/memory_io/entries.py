"""Building and writing memory entries: one document, or the chunks of long content (issue 11.3).

* :func:`new_document` — a document with its lifecycle fields (class, authority, observed_at).
* :func:`chunked` — content longer than the embedding model's chunk size becomes several documents: the
  first keeps the id the caller knows, the others get derived ids, ``derived_from`` the first (so a delete of
  the first cascades to every chunk) and ``parent_id`` / ``chunk_index`` / ``chunk_count``. Content over
  :data:`MAX_DOCUMENT_CHARS` is refused with a 413 naming the limit.
* :func:`write_documents` — embed and store (each text within the model's limit by construction).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mneme.errors import PayloadTooLarge
from mneme.memory.chunking import MAX_CHUNKS, chunk_ids, split
from mneme.memory.embedding_limits import EmbeddingLimit
from mneme.memory.entry_retention import MemoryRetention
from mneme.models.memory import Authority, MemoryClass, MemoryDocument, default_class
from mneme.spec_limits import MAX_DOCUMENT_CHARS

if TYPE_CHECKING:
    from mneme.ports.common import Clock


def new_document(
    doc_id: str,
    namespace: str,
    owner: str,
    content: str,
    *,
    clock: Clock,
    tags: Sequence[str] = (),
    metadata: dict[str, Any] | None = None,
    derived_from: Sequence[str] = (),
    ttl_seconds: int | None = None,
    memory_class: MemoryClass | None = None,
    authority: Authority | None = None,
    observed_at: datetime | None = None,
    retention: MemoryRetention | None = None,
) -> MemoryDocument:
    """A new entry; its class defaults by its ``source``, and it expires by the earlier of ``ttl_seconds`` and
    the deployment's retention for its class."""
    now = clock.now()
    meta = metadata or {}
    cls = memory_class or default_class(meta.get("source"))
    return MemoryDocument(
        id=doc_id,
        namespace=namespace,
        owner_user_id=owner,
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        tags=list(tags),
        metadata=meta,
        derived_from=list(derived_from),
        created_at=now,
        updated_at=now,
        expires_at=(retention or MemoryRetention()).expires_at(now, cls, ttl_seconds),
        memory_class=cls,
        authority=authority,
        observed_at=observed_at,
    )


def chunked(document: MemoryDocument, limit: EmbeddingLimit) -> list[MemoryDocument]:
    """``document`` itself when it fits one embedding call, else its chunks (see the module docstring)."""
    if len(document.content) > MAX_DOCUMENT_CHARS:
        raise PayloadTooLarge(
            f"content of {len(document.content):,} characters exceeds the {MAX_DOCUMENT_CHARS:,}-character limit"
            f" of a memory entry (stored in chunks of {limit.chunk_chars:,} for {limit.model_id})",
            field="content",
            details={"limit_chars": MAX_DOCUMENT_CHARS, "chars": len(document.content)},
        )
    if len(document.content) <= limit.chunk_chars:
        return [document]
    parts = split(document.content, limit.chunk_chars)
    if len(parts) > MAX_CHUNKS:  # never a silent cut: all of it is stored, or none (issue 31.5)
        raise PayloadTooLarge(
            f"content of {len(document.content):,} characters makes {len(parts)} chunks of at most"
            f" {limit.chunk_chars:,} characters for {limit.model_id}: more than the {MAX_CHUNKS} of one memory entry",
            field="content",
            details={"limit_chunks": MAX_CHUNKS, "chunks": len(parts), "chunk_chars": limit.chunk_chars},
        )
    ids = chunk_ids(document.id, len(parts))
    out: list[MemoryDocument] = []
    for index, (doc_id, text) in enumerate(zip(ids, parts, strict=True)):
        out.append(
            document.model_copy(
                update={
                    "id": doc_id,
                    "content": text,
                    "content_hash": hashlib.sha256(text.encode()).hexdigest(),
                    "derived_from": list(document.derived_from) if index == 0 else [ids[0]],
                    "parent_id": None if index == 0 else ids[0],
                    "chunk_index": index,
                    "chunk_count": len(parts),
                }
            )
        )
    return out
