"""The memory revisions port (issue 35.3): the immutable history of every entry, kept beside the store.

Adapters: the item table (``mneme.adapters.dynamo.memory_revisions``: DynamoDB on AWS, the SQLite item table in
local mode, the in-memory item table in tests), under the owner's key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from mneme.models.revision import MemoryRevision


class MemoryRevisions(Protocol):
    def append(self, revisions: Sequence[MemoryRevision]) -> None:
        """Keep these revisions (a revision is never changed afterwards)."""
        ...

    def history(self, owner_user_id: str, doc_id: str) -> list[MemoryRevision]:
        """One entry's revisions, oldest first."""
        ...

    def owned(self, owner_user_id: str) -> list[MemoryRevision]:
        """Every revision of the owner's entries ("": the global entries'), each entry's oldest first."""
        ...

    def erase(self, owner_user_id: str) -> int:
        """Remove every revision of the owner's entries for good; answers how many were removed."""
        ...

    def forget(self, owner_user_id: str, doc_ids: Sequence[str]) -> int:
        """Remove every revision of these entries of the owner's for good (entries removed for good, or a write
        taken back); answers how many were removed."""
        ...

    def claim(self, owner_user_id: str, doc_id: str, etag: str, *, now: datetime) -> bool:
        """Claim the entry's version ``etag`` for one conditional change (``If-Match``): False when another change
        based on that version claimed it first (two requests that read the same ETag: one wins)."""
        ...

    def release(self, owner_user_id: str, doc_id: str, etag: str) -> None:
        """Give a claim back: its change failed before it changed the entry."""
        ...
