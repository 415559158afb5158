"""The model ports: the model client (and its streaming form), the summarizer, the embedder.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mneme.models import (
    ChatMessage,
    Usage,
)
from mneme.records import Record, field

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class ModelResponse(Record):
    """One Converse reply: the assistant content blocks (``text`` / ``toolUse`` / ``reasoningContent``), stop
    reason and usage. Reasoning blocks carry redacted content as base64 text (JSON-safe, for the checkpoint)."""

    content: list[dict[str, Any]]
    stop_reason: str
    usage: Usage = field(default_factory=Usage)

    @property
    def text(self) -> str:
        return "".join(block["text"] for block in self.content if "text" in block)

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [block["toolUse"] for block in self.content if "toolUse" in block]

    @property
    def reasoning(self) -> list[dict[str, Any]]:
        """The ``reasoningContent`` blocks, in order (never part of :attr:`text`)."""
        return [block for block in self.content if "reasoningContent" in block]


class ModelClient(Protocol):
    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        """Send one Bedrock-Converse-shaped request; raise ModelThrottled / ModelUnavailable on failure, and
        ModelTimedOut when no answer came within ``timeout_seconds`` (retries included; None: the client's
        own timeouts). A timed-out call is not retried."""
        ...


class StreamingModel(Protocol):
    def converse_stream(self, request: dict[str, Any], on_text: Callable[[str], None]) -> ModelResponse:
        """Like ``converse``, but the answer's text arrives in pieces through ``on_text`` as it is generated;
        the returned response equals what ``converse`` would have returned."""
        ...


# --------------------------------------------------------------------------------------------- orchestration


class Summary(Record):
    """A rolling summary and what its model call used (priced by the engine like every model call); ``request``
    is the Converse request the call sent (recorded with the run's own, SPEC §10), None when no model made it."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model_id: str = ""
    provider: str = "offline"
    request: dict[str, Any] | None = field(default=None, repr=False)


#: where a summarizer whose model call failed puts the request it sent: the failing ``MnemeError``'s ``details``
#: (SPEC §10: every model call's request is the run's to show, a failed one included)
FAILED_REQUEST = "request"


class Summarizer(Protocol):
    def summarize(
        self, previous_summary: str | None, messages: Sequence[ChatMessage], *, timeout_seconds: float | None = None
    ) -> Summary:
        """Compress ``messages`` (with the previous summary) into a new summary, within ``timeout_seconds``
        when given (the run's time budget) and never longer than the summary's own limit."""
        ...


class Embedder(Protocol):
    @property
    def dimension(self) -> int: ...

    @property
    def model_id(self) -> str:
        """The embedding model: keys its input limit and score floors (``mneme.memory.embedding_limits``)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text; raise EmbeddingUnavailable on failure."""
        ...


class Reranker(Protocol):
    """A second stage of memory search: scores each candidate's text against the query (a cross-encoder)."""

    @property
    def model_id(self) -> str:
        """The reranking model: keys its score floor (``mneme.memory.rerank``)."""
        ...

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score in [0, 1] per text, in the texts' order; raise RerankUnavailable on failure."""
        ...


# --------------------------------------------------------------------------------------------- memory
