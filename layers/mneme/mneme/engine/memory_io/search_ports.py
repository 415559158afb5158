"""What a memory search needs: the ports it reads and writes through, and how it ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mneme.errors import MemoryUnavailable
from mneme.memory import rerank
from mneme.memory.embedding_limits import clip_query, limit_for
from mneme.memory.entry_retention import MemoryRetention
from mneme.models.policy import DEFAULT_RETRIEVAL, Fusion, ResolvedPolicy, Retrieval
from mneme.ports.audit import AuditLog
from mneme.ports.common import Clock
from mneme.ports.memory import MemoryStore, MemoryView
from mneme.ports.models import Embedder, Reranker
from mneme.ports.privacy import PrivacyLedger
from mneme.records import Record, field


class Ranking(Record):
    """How one search ranks: ``min_score`` / ``relative_cutoff`` None take the floors calibrated for the
    embedding model and ``retrieval`` mode (:mod:`mneme.memory.embedding_limits`); they apply to the fused score."""

    top_k: int
    min_score: float | None = None
    relative_cutoff: float | None = None
    retrieval: Retrieval = DEFAULT_RETRIEVAL
    fusion: Fusion = "score"
    lines: bool = False  # each chat-line hit with the lines said around it (mneme.memory.conversation)

    @classmethod
    def of(cls, policy: ResolvedPolicy, top_k: int | None = None) -> Ranking:
        return cls(top_k or policy.top_k, policy.min_score, policy.relative_cutoff, policy.retrieval, policy.fusion)

    def floors(self, model_id: str, *, reranked_by: str | None = None) -> tuple[float, float]:
        """``(min_score, relative_cutoff)``: the policy's, else those calibrated for the embedding model (or, when
        a reranking model scored the hits, that model's floor)."""
        calibrated = (rerank.floor(reranked_by), 0.0) if reranked_by else limit_for(model_id).floor(self.retrieval)
        return (
            calibrated[0] if self.min_score is None else self.min_score,
            calibrated[1] if self.relative_cutoff is None else self.relative_cutoff,
        )


class MemoryPorts(Record):
    store: MemoryStore | None
    embedder: Embedder | None
    audit: AuditLog
    clock: Clock
    rules: Sequence[Any] = ()
    recency_decay: float = 0.05
    retention: MemoryRetention = field(default_factory=MemoryRetention)
    hidden_ids: frozenset[str] = frozenset()  # deleted moments ago: a store may still show them (issue 11.4)
    reranker: Reranker | None = None  # the optional second stage (mneme.memory.rerank)
    view: MemoryView | None = None  # what searches read instead of the store: the memory as it was (as_of)
    erasures: PrivacyLedger | None = None  # the erasure tombstones a synchronous write is checked against

    def require(self) -> tuple[MemoryStore, Embedder]:
        if self.store is None or self.embedder is None:
            raise MemoryUnavailable("long-term memory is not configured")
        return self.store, self.embedder

    def searched(self) -> MemoryView:
        """What a search reads: :attr:`view` when set, else the store (MemoryUnavailable without memory)."""
        store, _ = self.require()
        return self.view if self.view is not None else store

    def embed_one(self, text: str) -> list[float]:
        """A query's vector: cut to the model's input limit (a search never fails on its length)."""
        _, embedder = self.require()
        vectors = embedder.embed([clip_query(text, limit_for(embedder.model_id))])
        return vectors[0]

    def embed_content(self, text: str) -> list[float]:
        """An entry's vector: never cut — content over the model's limit raises EmbeddingInputTooLong (413)."""
        _, embedder = self.require()
        return embedder.embed([text])[0]

    @property
    def model_id(self) -> str:
        return self.embedder.model_id if self.embedder is not None else "unknown"
