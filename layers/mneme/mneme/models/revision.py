"""Revisions of memory entries (issue 35.3): every change of an entry, immutable, with who or what made it."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from mneme.models.memory import MemoryDocument

RevisionChange = Literal["create", "update", "supersede", "delete", "restore"]
#: who or what made a change: the user (HTTP, MCP, the inbox), an agent run (its memory tools, its auto-write),
#: the memory writer's extraction or consolidation, or mneme itself (no actor known)
RevisionBy = Literal["user", "agent_run", "extraction", "consolidation", "system"]


class MemoryRevision(BaseModel, defer_build=True):
    """One change of an entry and the entry as it was right after it (its vector is not kept)."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    key: str  # orders an entry's revisions: the moment, then a counter (unique per entry)
    change: RevisionChange
    at: datetime
    by: RevisionBy
    actor: str | None = None  # the user id or the run id, when known
    owner_user_id: str  # "" for a global entry
    document: MemoryDocument
