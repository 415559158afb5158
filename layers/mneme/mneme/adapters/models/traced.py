"""A ModelClient wrapped in a ``chat {model}`` span (GenAI semantic conventions; issue 16): every model call
of every provider, through the one registry (``ModelClients``). With telemetry off it adds one flag check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mneme import telemetry
from mneme.ports.models import ModelClient, ModelResponse

PROVIDER_NAMES = {"bedrock": "aws.bedrock", "openai-compatible": "openai", "offline": "mneme.offline"}


class TracedModel:
    def __init__(self, client: ModelClient, provider: str) -> None:
        self._client = client
        self._provider = PROVIDER_NAMES.get(provider, provider)

    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        return self._traced(request, lambda: self._client.converse(request, timeout_seconds=timeout_seconds))

    def converse_stream(
        self, request: dict[str, Any], on_delta: Callable[[str], None], *, timeout_seconds: float | None = None
    ) -> ModelResponse:
        """The wrapped client's streaming call (``ConverseStream``), or its plain call when it cannot stream."""
        stream = getattr(self._client, "converse_stream", None)
        if stream is None:
            return self.converse(request, timeout_seconds=timeout_seconds)
        return self._traced(request, lambda: stream(request, on_delta, timeout_seconds=timeout_seconds))

    def _traced(self, request: dict[str, Any], call: Callable[[], ModelResponse]) -> ModelResponse:
        if not telemetry.enabled():
            return call()
        model_id = str(request.get("modelId", ""))
        inference = request.get("inferenceConfig") or {}
        thinking = (request.get("additionalModelRequestFields") or {}).get("thinking") or {}
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._provider,
            "gen_ai.request.model": model_id,
            "gen_ai.request.max_tokens": inference.get("maxTokens"),
            "gen_ai.request.temperature": inference.get("temperature"),
            "gen_ai.request.top_p": inference.get("topP"),
            "mneme.request.tools": len((request.get("toolConfig") or {}).get("tools") or []),
            "mneme.request.reasoning_budget_tokens": thinking.get("budget_tokens"),
            "mneme.request.guardrail_id": (request.get("guardrailConfig") or {}).get("guardrailIdentifier"),
            "gen_ai.input.messages": telemetry.content(request.get("messages")),
        }
        with telemetry.span(f"chat {model_id}", attributes, kind="client") as span:
            response = call()
            usage = response.usage
            span.set_many(
                {
                    "gen_ai.response.finish_reasons": [response.stop_reason],
                    "gen_ai.usage.input_tokens": usage.input_tokens,
                    "gen_ai.usage.output_tokens": usage.output_tokens,
                    "gen_ai.usage.cache_read.input_tokens": usage.cache_read_tokens,
                    "gen_ai.usage.cache_creation.input_tokens": usage.cache_write_tokens,
                    "mneme.response.tool_calls": len(response.tool_uses),
                    "mneme.response.reasoning_blocks": len(response.reasoning),
                    "gen_ai.output.messages": telemetry.content(response.content),
                }
            )
            return response
