"""The Summarizer port over any ModelClient (SPEC §4): one model call, no tools.

The request has a short fixed instruction as its system block and one user message with the previous
summary and the messages to compress rendered as text. Every rendered line of user content is quoted
with ``> `` so that nothing inside it reads as an instruction line (and the offline model never sees a
directive at the start of a line). The summary is capped at 8,000 characters.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mneme.errors import MnemeError
from mneme.models.chat import SystemMessage, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.ports.models import FAILED_REQUEST, Summary
from mneme.spec_limits import SUMMARY_MAX_CHARS, SUMMARY_TIMEOUT_SECONDS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.models.chat import ChatMessage
    from mneme.ports.models import ModelClient

MAX_MESSAGE_CHARS = 4_000
DEFAULT_MAX_TOKENS = 2_048

SUMMARY_INSTRUCTION = (
    "You compress the history of a conversation between a user and an AI assistant. Write a concise "
    "summary that keeps every fact, decision, open question, user preference, name, number and tool "
    "result the assistant needs to continue the conversation; merge the previous summary in. Write "
    f"plain prose or short bullet points, at most {SUMMARY_MAX_CHARS} characters, and output only the summary."
)


class ModelSummarizer:
    """Summarizes chat history with one call of ``model`` using ``model_id``."""

    def __init__(
        self, model: ModelClient, model_id: str, *, provider: str = "bedrock", max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        self._model = model
        self._model_id = model_id
        self._provider = provider
        self._max_tokens = max_tokens

    def build_request(self, previous_summary: str | None, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        """The Converse request of the summary call (no ``toolConfig``)."""
        return {
            "modelId": self._model_id,
            "system": [{"text": SUMMARY_INSTRUCTION}],
            "messages": [{"role": "user", "content": [{"text": render(previous_summary, messages)}]}],
            "inferenceConfig": {"maxTokens": self._max_tokens, "temperature": 0.0},
        }

    def summarize(
        self, previous_summary: str | None, messages: Sequence[ChatMessage], *, timeout_seconds: float | None = None
    ) -> Summary:
        request = self.build_request(previous_summary, messages)
        timeout = SUMMARY_TIMEOUT_SECONDS if timeout_seconds is None else min(timeout_seconds, SUMMARY_TIMEOUT_SECONDS)
        try:
            response = self._model.converse(request, timeout_seconds=timeout)
        except MnemeError as exc:  # the failed call's request goes with its error (the run records it)
            exc.details = {**exc.details, FAILED_REQUEST: request}
            raise
        # an empty text is still a call made and paid for: returned, so the engine counts it (and warns)
        text = response.text.strip()[:SUMMARY_MAX_CHARS]
        return Summary(text, response.usage, self._model_id, self._provider, request)


def render(previous_summary: str | None, messages: Sequence[ChatMessage]) -> str:
    """The user text of the summary call."""
    parts = []
    if previous_summary and previous_summary.strip():
        parts.append("PREVIOUS SUMMARY:\n" + _quote(previous_summary))
    lines = [_render_message(number, message) for number, message in enumerate(messages, start=1)]
    parts.append("MESSAGES TO SUMMARIZE:\n" + ("\n".join(lines) if lines else "(none)"))
    parts.append("Write the updated summary now.")
    return "\n\n".join(parts)


def _render_message(number: int, message: ChatMessage) -> str:
    if isinstance(message, TextMessage | SystemMessage):
        return f"[{number}] {message.role}:\n{_quote(message.text)}"
    if isinstance(message, ToolCallMessage):
        arguments = json.dumps(message.arguments, sort_keys=True, ensure_ascii=False)
        return f"[{number}] assistant called tool {message.tool or '?'}:\n{_quote(arguments)}"
    if isinstance(message, ToolResultMessage):
        return f"[{number}] tool {message.tool or '?'} returned ({message.status}):\n{_quote(message.content)}"
    return f"[{number}] (unknown message)"


def _quote(text: str) -> str:
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS] + " […]"
    return "\n".join(f"> {line}" for line in text.split("\n"))
