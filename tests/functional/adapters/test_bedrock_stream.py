"""Bedrock ConverseStream (issue 15.2): the stream's events fold back into exactly what Converse answers,
the text deltas reach the callback in order, and errors translate as for Converse."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError, EventStreamError

from mneme.adapters.models.bedrock import BedrockModel, parse_converse_response
from mneme.adapters.models.bedrock_stream import fold_stream
from mneme.errors import ModelRequestRejected, ModelThrottled

USAGE = {"inputTokens": 120, "outputTokens": 30, "totalTokens": 150, "cacheReadInputTokens": 100}
STREAM: list[dict[str, Any]] = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Let me "}}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "look that up."}}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "t1", "name": "memory-search"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"query": "wh'}}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": 'ere?", "top_k": 3}'}}}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    {"messageStop": {"stopReason": "tool_use"}},
    {"metadata": {"usage": USAGE, "metrics": {"latencyMs": 300}}},
]
CONVERSE = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"text": "Let me look that up."},
                {"toolUse": {"toolUseId": "t1", "name": "memory-search", "input": {"query": "where?", "top_k": 3}}},
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": USAGE,
}


def test_the_folded_stream_equals_the_converse_answer() -> None:
    pieces: list[str] = []
    folded = fold_stream(iter(STREAM), pieces.append)
    assert parse_converse_response(folded) == parse_converse_response(CONVERSE)
    assert pieces == ["Let me ", "look that up."]


def test_a_tool_call_without_input_pieces_has_empty_arguments() -> None:
    stream: list[dict[str, Any]] = [
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t2", "name": "x"}}}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    response = parse_converse_response(fold_stream(stream, lambda _: None))
    assert response.tool_uses == [{"toolUseId": "t2", "name": "x", "input": {}}]


def test_reasoning_deltas_fold_into_one_block_with_its_signature() -> None:
    stream: list[dict[str, Any]] = [
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think "}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "more"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig=="}}}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "answer"}}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    folded = fold_stream(stream, lambda _: None)
    assert folded["output"]["message"]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "think more", "signature": "sig=="}}},
        {"text": "answer"},
    ]


class _Client:
    def __init__(self, events: Any = None, error: Exception | None = None) -> None:
        self.events, self.error = events, error
        self.requests: list[dict[str, Any]] = []

    def converse_stream(self, **request: Any) -> dict[str, Any]:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        return {"stream": self.events}


def test_the_adapter_sends_the_request_as_recorded_and_streams_the_text() -> None:
    client = _Client(events=iter(STREAM))
    pieces: list[str] = []
    request = {"modelId": "m1", "messages": [{"role": "user", "content": [{"text": "hi"}]}], "toolConfig": None}
    response = BedrockModel(client).converse_stream(request, pieces.append)  # type: ignore[arg-type]
    assert client.requests == [{"modelId": "m1", "messages": request["messages"]}]  # None fields are left out
    assert response.stop_reason == "tool_use" and response.usage.cache_read_tokens == 100
    assert "".join(pieces) == response.text


def test_a_throttled_stream_is_model_throttled() -> None:
    error = ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "ConverseStream")
    with pytest.raises(ModelThrottled):
        BedrockModel(_Client(error=error)).converse_stream({"modelId": "m1"}, lambda _: None)  # type: ignore[arg-type]


def test_an_error_inside_the_stream_translates_like_converse() -> None:
    def broken() -> Any:
        yield STREAM[1]
        raise EventStreamError({"Error": {"Code": "ValidationException", "Message": "bad"}}, "ConverseStream")

    with pytest.raises(ModelRequestRejected):
        BedrockModel(_Client(events=broken())).converse_stream({"modelId": "m1"}, lambda _: None)  # type: ignore[arg-type]
