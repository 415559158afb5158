"""The Converse ↔ Chat Completions mapping (mneme.adapters.models.openai_wire), edge cases of real servers."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.openai_wire import from_chat_completion, parse_usage, to_chat_completions
from mneme.models.run import Usage


def _reply(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]}


def test_finish_reasons_map_to_converse_stop_reasons() -> None:
    assert from_chat_completion(_reply({"content": "x"}, "length")).stop_reason == "max_tokens"
    assert from_chat_completion(_reply({"content": "x"}, "content_filter")).stop_reason == "content_filtered"
    assert from_chat_completion(_reply({"content": "x"}, "stop")).stop_reason == "end_turn"


def test_tool_calls_under_a_stop_finish_reason_are_still_tool_use() -> None:  # Ollama does this
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    assert from_chat_completion(_reply({"content": None, "tool_calls": [call]}, "stop")).stop_reason == "tool_use"


def test_arguments_that_are_not_a_json_object_become_an_empty_input() -> None:
    calls = [
        {"id": "a", "function": {"name": "f", "arguments": "{not json"}},
        {"id": "b", "function": {"name": "f", "arguments": "[1, 2]"}},
        {"id": "c", "function": {"name": "f", "arguments": {"q": 1}}},
    ]
    uses = from_chat_completion(_reply({"tool_calls": calls}, "tool_calls")).tool_uses
    assert [u["input"] for u in uses] == [{}, {}, {"q": 1}]


def test_a_call_id_converse_would_refuse_gets_a_stable_stand_in() -> None:
    call = {"id": "call:with spaces/and-slashes", "function": {"name": "f", "arguments": "{}"}}
    first = from_chat_completion(_reply({"tool_calls": [call]}, "tool_calls")).tool_uses[0]["toolUseId"]
    again = from_chat_completion(_reply({"tool_calls": [call]}, "tool_calls")).tool_uses[0]["toolUseId"]
    assert first == again and first.startswith("call_") and len(first) <= 64


def test_usage_of_other_servers() -> None:
    assert parse_usage({"prompt_tokens": 100, "completion_tokens": 5, "prompt_cache_hit_tokens": 60}) == Usage(
        input_tokens=40, output_tokens=5, cache_read_tokens=60
    )
    litellm = {"prompt_tokens": 1000, "completion_tokens": 10, "cache_creation_input_tokens": 300}
    assert parse_usage(litellm) == Usage(input_tokens=700, output_tokens=10, cache_write_tokens=300)
    assert parse_usage(None) == Usage()


def _request(**extra: Any) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "maxLength": 20000, "minLength": 1, "pattern": "^.+$"},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 20, "minItems": 0},
        },
        "required": ["text"],
    }
    tools = [{"toolSpec": {"name": "memory_write", "description": "d", "inputSchema": {"json": schema}}}]
    return {
        "modelId": "m",
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "toolConfig": {"tools": tools},
        **extra,
    }


def test_tools_offered_are_sent_with_tool_choice_auto() -> None:  # llama.cpp ignores tools without it
    assert to_chat_completions(_request())["tool_choice"] == "auto"


def test_no_tool_choice_without_tools() -> None:
    body = to_chat_completions({"modelId": "m", "messages": [{"role": "user", "content": [{"text": "hi"}]}]})
    assert "tool_choice" not in body and "tools" not in body


def test_tool_schemas_are_sent_without_length_pattern_and_count_limits() -> None:
    params = to_chat_completions(_request())["tools"][0]["function"]["parameters"]
    assert params["properties"]["text"] == {"type": "string"}
    assert params["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert params["required"] == ["text"]


def test_stripping_limits_leaves_the_recorded_request_untouched() -> None:
    request = _request()
    to_chat_completions(request)
    text = request["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]["properties"]["text"]
    assert text["maxLength"] == 20000


def test_an_assistant_turn_with_only_tool_calls_has_empty_string_content() -> None:  # llama.cpp refuses null
    use = {"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}}
    request = {"modelId": "m", "messages": [{"role": "assistant", "content": [use]}]}
    message = to_chat_completions(request)["messages"][0]
    assert message["content"] == "" and message["tool_calls"][0]["id"] == "c1"


def test_a_field_named_like_a_limit_keyword_is_kept() -> None:
    schema = {"type": "object", "properties": {"pattern": {"type": "string", "maxLength": 5}}}
    tools = [{"toolSpec": {"name": "grep", "inputSchema": {"json": schema}}}]
    params = to_chat_completions({"modelId": "m", "messages": [], "toolConfig": {"tools": tools}})["tools"][0]
    assert params["function"]["parameters"]["properties"] == {"pattern": {"type": "string"}}
