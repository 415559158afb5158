"""The memory ports: the store (search, write, lifecycle), its journal, and the memory-write queue.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from mneme.models import (
    MemoryCandidate,
    MemoryDocument,
)
from mneme.records import Record, field

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from datetime import datetime

    from mneme.models.memory import KeywordMatches, MemoryClass


class MemoryView(Protocol):
    """What a search reads: a live store, or a read-only snapshot of one as it was (``mneme.memory.snapshot``,
    the as-of search of issue 35.3) — the same retrieval and ranking run over either."""

    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        """The ``k`` nearest live documents whose namespace matches one of ``patterns`` (resolved, already
        security-filtered). The filter (namespace, not expired, not deleted, not superseded) is applied
        inside the nearest-neighbour search, never after it."""
        ...

    def keyword_search(self, text: str, patterns: Sequence[str], k: int, *, now: datetime) -> list[MemoryCandidate]:
        """The ``k`` best BM25 matches of ``text`` among the same live documents :meth:`search` may see, the
        same filter inside the query; ``similarity`` is BM25 computed with the statistics of those documents
        only (``mneme.memory.keyword_scoring.KeywordSearch``: never another user's)."""
        ...

    def keyword_matches(
        self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
    ) -> KeywordMatches:
        """The live documents of ``patterns`` containing one of ``words`` (the filter inside the query; at most
        ``limit``, the rarest words' first) and the statistics of those namespaces' live documents."""
        ...

    def adjacent(
        self, documents: Sequence[MemoryDocument], span: int, *, now: datetime
    ) -> dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]:
        """For each document, up to ``span`` live documents written just before it (oldest first) and just
        after it (in write order), of its own namespace: the conversation around a stored turn."""
        ...

    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        """Every entry in the user's own namespaces (owner ``user_id``), of every status, expired ones too."""
        ...


class MemoryStore(MemoryView, Protocol):
    """A memory store: what a search reads (:class:`MemoryView`) and every change and lifecycle call."""

    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        """Store documents; identical content in the same namespace refreshes the existing entry. Returns
        the ids in order (the existing id when refreshed)."""
        ...

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None: ...

    def find(self, doc_id: str) -> MemoryDocument | None:
        """A live (not deleted) entry by id alone, in any namespace — the caller checks it may see it."""
        ...

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
        """Change an entry in place; raise NotFound when it does not exist (or is deleted)."""
        ...

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        """Mark an entry deleted and cascade to entries derived from it; returns every id marked."""
        ...

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        """The entries of these ids, deleted or not, in any namespace (whose entries a cascade deleted: the
        caller audits each owner's)."""
        ...

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        """The ``vector.global.*`` entries whose metadata names ``user_id`` as their writer."""
        ...

    def hard_delete(self, ids: Sequence[str]) -> int:
        """Remove the entries (every stored copy) for good; answers how many documents were removed."""
        ...

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        """Remove for good every entry expired at ``now``, and every entry of a class in ``cutoffs`` created
        before that class's cutoff; answers how many were removed."""
        ...

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
        """Supersede (or restore) an entry; NotFound when it does not exist or is deleted."""
        ...

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        """Consolidate ``newer`` into the stored entry: ``updated_at``, tags and ``derived_from`` merged,
        the newer metadata (its source appended to ``metadata.sources``); the content stays."""
        ...

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        """One namespace's entries, newest first (``created_at``, then id), optionally of one status, paged
        by an opaque cursor; deleted entries only when ``status == "deleted"``."""
        ...

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        """Every namespace matched by ``patterns`` with its entries counted by status."""
        ...

    def derived_ids(self, doc_id: str) -> list[str]:
        """The live entries a delete of ``doc_id`` would cascade to (transitively), oldest first."""
        ...

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        """Active entries written so recently that :meth:`search` may not show them yet, with their vectors
        (consolidation checks them too); empty for a store that is read-your-writes."""
        ...


class JournalEntry(Record):
    """What a memory store that is not read-your-writes (OpenSearch Serverless) remembers of a recent write."""

    doc_id: str
    namespace: str
    content_hash: str
    native_id: str  # the store's own id (the service-assigned ``_id``)
    status: str = "active"  # active | superseded | deleted
    owner_user_id: str = ""  # the user whose namespace holds it ("" for global entries)


class MemoryJournal(Protocol):
    """Recent writes of the memory store, shared by every process (DynamoDB): mneme id → the store's id and
    status, and (namespace, content hash) → the entry, for the refresh interval the index does not show."""

    def record(self, entries: Sequence[JournalEntry]) -> None: ...

    def lookup(self, doc_ids: Sequence[str]) -> dict[str, JournalEntry]: ...

    def by_hash(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], JournalEntry]: ...

    def recent(self, namespace: str) -> list[JournalEntry]:
        """The active entries of ``namespace`` written inside the window, newest first."""
        ...

    def owned(self, owner_user_id: str) -> list[JournalEntry]:
        """Every entry of the user's namespaces written inside the window, whatever its status now (what an
        erasure or an export must find while a listing, which is a search, does not show it yet)."""
        ...

    def forget(self, doc_ids: Sequence[str]) -> None:
        """Remove everything recorded of these entries (they were deleted for good)."""
        ...


class MemoryWriteJob(Record):
    """One memory entry to embed and index later (the SQS message body of the memory writer)."""

    job_id: str  # deterministic: a retry of the same job must not duplicate the entry
    namespace: str
    owner_user_id: str
    content: str
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    derived_from: list[str] = field(default_factory=list)
    ttl_seconds: int | None = None
    kind: str = "raw"  # "raw": store ``content``; "extract": extract memories from it (issue 13.2)
    answer: str = ""  # the run's answer, for an "extract" job
    strategies: list[str] = field(default_factory=list)  # facts / preferences / summary
    model: dict[str, str] | None = None  # the extraction model {provider, model_id, endpoint?, api_key_secret_arn?}
    duplicate_threshold: float | None = None  # consolidation: None → the embedding model's


class MemoryWriteQueue(Protocol):
    def enqueue(self, jobs: Sequence[MemoryWriteJob]) -> None:
        """Queue jobs for the memory writer; raise QueueUnavailable on failure."""
        ...


# --------------------------------------------------------------------------------------------- audit
