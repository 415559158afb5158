"""Memory documents, search candidates and hits (SPEC §5, §10)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MemoryClass = Literal["episodic", "semantic", "preference", "procedural", "document"]


def default_class(source: str | None) -> MemoryClass:
    """The class of an entry whose writer named none, by its ``source`` metadata."""
    if source in ("run_input", "run_output", "auto_write"):
        return "episodic"
    if source == "http":
        return "document"
    return "semantic"


class NamespaceRule(BaseModel):
    """A ranking rule: hits from matching namespaces get ``bonus``; ``instruction`` is shown to the model."""

    model_config = ConfigDict(frozen=True)

    pattern: str
    bonus: float = 0.0
    instruction: str | None = None


class MemoryDocument(BaseModel):
    """One stored memory entry. ``id`` is mneme's own id (OpenSearch Serverless has no custom ``_id``)."""

    id: str
    namespace: str
    owner_user_id: str  # the user whose namespace holds it ("" for global entries)
    content: str
    content_hash: str
    tags: list[str] = []
    metadata: dict[str, Any] = {}  # source, agent_id, task_id, chat_id, user_id, session_id, run_id
    derived_from: list[str] = []
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None = None
    deleted: bool = False
    superseded: bool = False
    memory_class: MemoryClass = "semantic"  # shown as "class" in the API


class MemoryCandidate(BaseModel):
    """A store search result before ranking: the document and its raw similarity (higher is closer)."""

    document: MemoryDocument
    similarity: float


class MemoryHit(BaseModel):
    """A ranked hit as injected, returned by tools and by the HTTP API."""

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    content: str
    similarity: float
    relevance: float
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
