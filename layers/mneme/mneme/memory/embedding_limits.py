"""Per-embedding-model input limits, chunk sizes and calibrated score floors (SPEC §5.3, issue 11.3 / 13.4).

* ``max_chars`` / ``max_tokens``: what one embedding call accepts. Titan Text Embeddings V2 refuses more than
  8,192 tokens or 50,000 characters (``ValidationException``); the local all-MiniLM-L6-v2 reads at most 256
  word pieces (its ``max_seq_length``; the position table holds 512) — the local stand-in refuses more than
  ``max_chars`` like Titan would, instead of silently dropping the tail as it did before.
* ``chunk_chars``: long content is stored as chunks of at most this many characters, each a memory entry
  linked to its first chunk. Titan's 8,000 stays under 8,192 tokens even at one token per character; the
  local model's 1,000 is about 220 word pieces of English, inside the window it actually reads.
* ``floors``: the default ``min_score`` per retrieval mode for this model — similarity scales differ (MiniLM
  cosines of related text sit around 0.3–0.6, Titan V2's higher), and the fused hybrid score has its own
  scale. Calibrated by ``bench/memory_quality.py`` (the recall each floor costs is in docs/performance.md).
* A query longer than ``max_chars`` is cut to it before embedding (a search never fails on its length).
"""

from __future__ import annotations

from mneme.errors import EmbeddingInputTooLong
from mneme.records import Record, field

RetrievalMode = str  # "vector" | "hybrid" | "keyword" (models.policy.Retrieval)


class EmbeddingLimit(Record):
    model_id: str
    max_chars: int
    max_tokens: int
    chunk_chars: int
    # retrieval mode -> (min_score, relative_cutoff) used when the policy sets none
    floors: dict[str, tuple[float, float]] = field(default_factory=dict)
    duplicate_threshold: float = 0.92  # cosine at or above which a new entry refreshes its nearest one

    def floor(self, mode: RetrievalMode) -> tuple[float, float]:
        return self.floors.get(mode, (0.0, 0.0))

    def check(self, text: str) -> None:
        """Raise like the model would for input it cannot take (stand-ins and adapters share this)."""
        if len(text) > self.max_chars:
            raise EmbeddingInputTooLong(
                f"{len(text)} characters exceed the {self.max_chars:,}-character input limit of {self.model_id}",
                details={"model_id": self.model_id, "limit_chars": self.max_chars, "chars": len(text)},
            )


TITAN_V2 = EmbeddingLimit(
    "amazon.titan-embed-text-v2:0",
    max_chars=50_000,
    max_tokens=8_192,
    chunk_chars=8_000,
    floors={"vector": (0.2, 0.0), "hybrid": (0.3, 0.0), "keyword": (0.3, 0.0)},
)
LOCAL_MINILM = EmbeddingLimit(
    "all-MiniLM-L6-v2",
    max_chars=2_000,
    max_tokens=256,
    chunk_chars=1_000,
    floors={"vector": (0.1, 0.0), "hybrid": (0.35, 0.0), "keyword": (0.35, 0.0)},
)
HASHING = EmbeddingLimit("hashing", max_chars=50_000, max_tokens=8_192, chunk_chars=8_000)  # the test fake
LIMITS: dict[str, EmbeddingLimit] = {limit.model_id: limit for limit in (TITAN_V2, LOCAL_MINILM, HASHING)}
UNKNOWN = EmbeddingLimit("unknown", max_chars=8_000, max_tokens=2_048, chunk_chars=2_000)


def limit_for(model_id: str) -> EmbeddingLimit:
    """The limits of ``model_id`` (a Titan V2 id with another suffix is Titan V2); unknown → conservative."""
    if model_id in LIMITS:
        return LIMITS[model_id]
    if model_id.startswith("amazon.titan-embed-text-v2"):
        return TITAN_V2
    return UNKNOWN


def clip_query(text: str, limit: EmbeddingLimit) -> str:
    return text[: limit.max_chars]
