"""Memory documents, search candidates and hits (SPEC §5, §10)."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mneme.records import Record

MemoryClass = Literal["episodic", "semantic", "preference", "procedural", "document"]
MemoryStatus = Literal["active", "superseded", "deleted"]
#: who decided an entry should exist: the user (HTTP, an inbox correction), the agent (a memory tool),
#: the extraction model, or the automatic write after a run
Authority = Literal["user_directed", "agent_initiated", "extracted", "auto_write"]

#: metadata keys mneme sets itself; a user (HTTP) or a model (memory tools) may not set them
RESERVED_METADATA_KEYS = frozenset(
    {
        "source",
        "agent_id",
        "task_id",
        "chat_id",
        "user_id",
        "session_id",
        "run_id",
        "made_by",  # issue 35.2: why an extracted entry exists
        "consolidated",  # issue 35.2: what consolidation did
        "root_run_id",
        "depth",
        "queued_at",
        "status",
        "superseded_by",
        "observed_at",
        "recorded_at",
        "updated_at",
        "class",
        "memory_class",
        "authority",
        "derived_from",
        "parent_id",
        "chunk_index",
        "chunk_count",
        "sources",
        "extraction",
        "subject",
        "refreshed",
    }
)


def default_class(source: str | None) -> MemoryClass:
    """The class of an entry whose writer named none, by its ``source`` metadata."""
    if source in ("run_input", "run_output", "auto_write"):
        return "episodic"
    if source == "http":
        return "document"
    return "semantic"


class NamespaceRule(BaseModel, defer_build=True):
    """A ranking rule: hits from matching namespaces get ``bonus``; ``instruction`` is shown to the model."""

    model_config = ConfigDict(frozen=True)

    pattern: str
    bonus: float = 0.0
    instruction: str | None = None


class MemoryDocument(BaseModel, defer_build=True):
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
    authority: Authority | None = None  # None on entries written before the lifecycle fields existed
    observed_at: datetime | None = None  # when the fact was true or said (None: when it was recorded)
    superseded_by: str | None = None  # the entry that replaced this one
    parent_id: str | None = None  # a chunk's first chunk (long content is stored as several entries)
    chunk_index: int | None = None
    chunk_count: int | None = None

    @property
    def status(self) -> MemoryStatus:
        """``deleted`` wins over ``superseded``; the stores keep the two flags (their filters use them)."""
        if self.deleted:
            return "deleted"
        return "superseded" if self.superseded else "active"


class MemoryCandidate(BaseModel, defer_build=True):
    """A store search result before ranking: the document and its raw similarity (higher is closer)."""

    document: MemoryDocument
    similarity: float
    vector_similarity: float | None = None  # hybrid: the cosine of the vector leg (None: not in it)
    keyword_score: float | None = None  # hybrid: the BM25 score of the keyword leg (None: not in it)


class ContextLine(BaseModel, defer_build=True):
    """A memory said just before or after a recalled chat line, shown with it where the run's model reads memory
    (auto-inject, the memory-search tool; :mod:`mneme.memory.conversation`)."""

    model_config = ConfigDict(frozen=True)

    id: str
    content: str
    offset: int  # where it was said: -1 just before the hit, 1 just after it, 2 after that line, …


class MemoryHit(BaseModel, defer_build=True):
    """A ranked hit as injected, returned by tools and by the HTTP API."""

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    content: str
    similarity: float  # the cosine (vector), the fused score (hybrid) or BM25 / best BM25 (keyword)
    relevance: float
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
    vector_similarity: float | None = None
    keyword_score: float | None = None
    memory_class: MemoryClass = "semantic"
    observed_at: datetime | None = None
    parent_id: str | None = None  # set on a chunk of long content: its first chunk's id
    chunk_index: int | None = None
    chunk_count: int | None = None
    #: the lines of its conversation said around it, when the search was asked for them (never in the HTTP
    #: search's hits, which are the ranked memories alone)
    context: list[ContextLine] = Field(default_factory=list)
    #: shown whatever the question: an entry of the policy's ``standing_namespaces`` (never a search's hit)
    standing: bool = False

    def as_json(self) -> dict[str, Any]:
        """The hit as JSON, with ``context`` only when lines are shown with it, ``standing`` only when it is."""
        excluded = {name for name, shown in (("context", self.context), ("standing", self.standing)) if not shown}
        return self.model_dump(mode="json", exclude=excluded or None)


class KeywordMatches(Record):
    """What a store found for some words, and the statistics of the set it searched (caller's only).

    ``documents``: live documents of the granted namespaces containing at least one word, at most the limit
    asked (documents of the rarest words first); ``total_documents`` / ``total_chars``: how many live documents
    the granted namespaces hold and their content's total length; ``doc_freq``: per word, how many of them
    contain it (as the store matches words: by stem in SQLite FTS5, by token in OpenSearch)."""

    documents: list[MemoryDocument]
    total_documents: int
    total_chars: int
    doc_freq: dict[str, int]
