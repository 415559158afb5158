"""Every change of a memory entry as an immutable revision (issue 35.3): :class:`RevisionedMemoryStore` wraps
any :class:`~mneme.ports.memory.MemoryStore` and appends a revision after each change it makes — create,
update (an edit, a refresh by consolidation), supersede, restore, delete (each entry a cascade reached too).

Who made a change: the caller says so with :func:`acting` (the HTTP paths: the user; the memory writer:
extraction or consolidation; a run's memory tools: the agent run); without it, a new entry's own metadata
tells (its ``source`` and ``run_id``), else ``system``. Searches and reads pass through unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any, Literal

from mneme.engine.memory_io import expected_version
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryClass, MemoryDocument
from mneme.models.revision import MemoryRevision, RevisionBy, RevisionChange
from mneme.ports.common import Clock
from mneme.ports.memory import MemoryStore
from mneme.ports.memory_revisions import MemoryRevisions

_ACTING: ContextVar[tuple[RevisionBy, str | None] | None] = ContextVar("mneme_revision_actor", default=None)
_COUNTER = itertools.count()
_BY_SOURCE: dict[str, RevisionBy] = {
    "http": "user",
    "mcp": "user",
    "inbox": "user",
    "tool": "agent_run",
    "run_input": "agent_run",
    "run_output": "agent_run",
    "extracted": "extraction",
}


@contextmanager
def acting(by: RevisionBy, actor: str | None) -> Iterator[None]:
    """The changes made inside are attributed to ``by`` / ``actor``."""
    token = _ACTING.set((by, actor))
    try:
        yield
    finally:
        _ACTING.reset(token)


def _author(document: MemoryDocument | None = None) -> tuple[RevisionBy, str | None]:
    said = _ACTING.get()
    if said is not None:
        return said
    if document is None:
        return "system", None
    metadata = document.metadata
    if "consolidated" in metadata:
        return "consolidation", _text(metadata.get("run_id"))
    by = _BY_SOURCE.get(str(metadata.get("source")), "system")
    return by, _text(metadata.get("user_id") if by == "user" else metadata.get("run_id"))


def created(documents: Sequence[MemoryDocument], ids: Sequence[str]) -> list[str]:
    """Of the ids a ``put`` of ``documents`` answered, those it created (identical content already stored
    answers the existing entry's id, which is not the new document's)."""
    return [doc_id for document, doc_id in zip(documents, ids, strict=True) if doc_id == document.id]


def _text(value: Any) -> str | None:
    return str(value) if value else None


class RevisionedMemoryStore:
    """A memory store that keeps a revision of every change (see the module doc)."""

    def __init__(self, inner: MemoryStore, revisions: MemoryRevisions, clock: Clock) -> None:
        self.inner = inner
        self.revisions = revisions
        self._clock = clock

    def __getattr__(self, name: str) -> Any:  # capability flags and adapter extras of the wrapped store
        if name == "inner":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _keep(
        self,
        changes: Sequence[tuple[RevisionChange, MemoryDocument]],
        author: tuple[RevisionBy, str | None] | None = None,
        *,
        at: datetime | None = None,
    ) -> None:
        """Append a revision per change, at the moment the change states (``at``: the ``now`` it was made with; a
        new entry's ``created_at``), so that an as-of read at the time the API answered finds it; never later than
        now. The key orders them as they were written."""
        now = self._clock.now()
        revisions = []
        for change, document in changes:
            by, actor = author or _author(document if change == "create" else None)
            stated = document.created_at if change == "create" else at
            revisions.append(
                MemoryRevision(
                    doc_id=document.id,
                    key=f"{now.isoformat()}#{next(_COUNTER):012d}",
                    change=change,
                    at=min(stated, now) if stated is not None else now,
                    by=by,
                    actor=actor,
                    owner_user_id=document.owner_user_id,
                    document=document,
                )
            )
        self.revisions.append(revisions)

    def _expected(self, doc_id: str, namespace: str) -> None:  # a conditional change's version (412 if another)
        expected_version.check(doc_id, lambda: self.inner.get(doc_id, namespace))

    def _moved(self, doc_id: str, namespace: str) -> None:
        expected_version.moved(doc_id, lambda: self.inner.get(doc_id, namespace))

    # ------------------------------------------------------------------------------------- changes
    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        """Store and keep a revision of each; when the revisions cannot be kept, the entries this call created
        are taken back (an entry never exists without its history) and the error is raised."""
        ids = self.inner.put(items)
        stored = {doc.id: doc for doc in self.inner.entries(ids)}
        changes: list[tuple[RevisionChange, MemoryDocument]] = []
        for (document, _), doc_id in zip(items, ids, strict=True):
            if doc_id in stored:
                changes.append(("create" if doc_id == document.id else "update", stored[doc_id]))
        try:
            self._keep(changes)
        except Exception:
            self.inner.hard_delete(created([document for document, _ in items], ids))
            raise
        return ids

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
        self._expected(doc_id, namespace)
        document = self.inner.update(doc_id, namespace, content=content, tags=tags, vector=vector, now=now)
        self._moved(doc_id, namespace)
        self._keep([("update", document)], at=now)
        return document

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        self._expected(doc_id, namespace)
        ids = self.inner.soft_delete(doc_id, namespace, now=now)
        self._moved(doc_id, namespace)
        self._keep([("delete", document) for document in self.inner.entries(ids)], at=now)
        return ids

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
        before = self.inner.get(doc_id, namespace)
        expected_version.check(doc_id, lambda: before)  # the entry read once, for the check and the revision
        document = self.inner.set_status(
            doc_id, namespace, status=status, superseded_by=superseded_by, now=now, authority=authority
        )
        self._moved(doc_id, namespace)
        if before is not None and before.status != document.status:  # the same status again is no change
            self._keep([("supersede" if status == "superseded" else "restore", document)], at=now)
        return document

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        document = self.inner.refresh(doc_id, namespace, newer)
        self._keep([("update", document)], author=_author(newer))
        return document

    # ------------------------------------------------------------------------------ pass-through
    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        return self.inner.search(vector, patterns, k, now=now)

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None:
        return self.inner.get(doc_id, namespace)

    def find(self, doc_id: str) -> MemoryDocument | None:
        return self.inner.find(doc_id)

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        return self.inner.entries(doc_ids)

    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        return self.inner.iter_owned(user_id)

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        return self.inner.iter_authored(user_id)

    def hard_delete(self, ids: Sequence[str]) -> int:
        """Remove entries for good, and their history with them."""
        owners: dict[str, list[str]] = {}
        for document in self.inner.entries(ids):
            owners.setdefault(document.owner_user_id, []).append(document.id)
        removed = self.inner.hard_delete(ids)
        for owner, doc_ids in owners.items():
            self.revisions.forget(owner, doc_ids)
        return removed

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        return self.inner.purge_expired(now, cutoffs)

    def keyword_search(self, text: str, patterns: Sequence[str], k: int, *, now: datetime) -> list[MemoryCandidate]:
        return self.inner.keyword_search(text, patterns, k, now=now)

    def keyword_matches(
        self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
    ) -> KeywordMatches:
        return self.inner.keyword_matches(words, patterns, limit, now=now)

    def adjacent(
        self, documents: Sequence[MemoryDocument], span: int, *, now: datetime
    ) -> dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]:
        return self.inner.adjacent(documents, span, now=now)

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        return self.inner.list_documents(namespace, status=status, limit=limit, cursor=cursor)

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        return self.inner.namespace_counts(patterns)

    def derived_ids(self, doc_id: str) -> list[str]:
        return self.inner.derived_ids(doc_id)

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        return self.inner.recent_writes(namespace)
