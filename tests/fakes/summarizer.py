"""An in-memory Summarizer (``mneme.ports.models.Summarizer``) that records its calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mneme.models import ChatMessage, Usage
from mneme.ports.models import Summary


@dataclass
class SummarizerCall:
    previous_summary: str | None
    messages: list[ChatMessage]
    timeout_seconds: float | None = None


@dataclass
class FakeSummarizer:
    """Answers ``reply`` (default: a line naming how many messages it saw), or raises ``error``."""

    reply: str | None = None
    error: Exception | None = None
    calls: list[SummarizerCall] = field(default_factory=list)

    usage: Usage = field(default_factory=Usage)
    model_id: str = "amazon.nova-lite-v1:0"

    def summarize(
        self, previous_summary: str | None, messages: Sequence[ChatMessage], *, timeout_seconds: float | None = None
    ) -> Summary:
        self.calls.append(SummarizerCall(previous_summary, list(messages), timeout_seconds))
        if self.error is not None:
            raise self.error
        text = self.reply if self.reply is not None else f"summary of {len(messages)} messages"
        return Summary(text, self.usage, self.model_id, "bedrock")
