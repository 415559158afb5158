"""The Converse-shaped request mneme records ↔ the OpenAI Chat Completions wire format (issue 16).

mneme assembles, records and previews one request shape for every provider (SPEC §10: "the Bedrock Converse
request body — whatever the provider"); this module translates it for a ``POST {base}/chat/completions``
and translates the reply back, so ``/context``, the preview and the usage fields stay uniform.

Request:

* ``system`` text blocks → one ``system`` message (blocks joined by a blank line); ``cachePoint`` blocks
  are dropped everywhere (OpenAI-compatible servers cache prefixes on their own, if at all);
* an assistant turn → one ``assistant`` message: its text blocks as ``content`` and
  its ``toolUse`` blocks as ``tool_calls`` (``arguments`` is a JSON string on this wire); ``content`` is
  ``""`` without text, never null (llama.cpp refuses null); ``reasoningContent``
  is Bedrock's and is not sent;
* a user turn → one ``tool`` message per ``toolResult`` (``tool_call_id``; a result marked error keeps its
  ``Error: …`` text), right after the assistant message that called, then one ``user`` message with the
  turn's text blocks;
* ``toolConfig.tools`` → ``tools`` (``type: function``, ``parameters`` = the JSON schema without length,
  pattern and count limits, which mneme's own input validation enforces) and ``tool_choice: "auto"``;
* ``inferenceConfig`` → ``max_tokens``, ``temperature``, ``top_p``, ``stop``. Parallel tool calls are the
  server's default and are not switched off.

Reply: ``choices[0].message`` → a ``text`` block (``content`` a string, or a list of typed parts whose
``text`` parts are joined — Mistral's reasoning models answer so, their ``thinking`` parts are not the answer)
and one ``toolUse`` block per tool call (arguments parsed;
an argument string that is not a JSON object becomes ``{}``, so the tool's schema check answers the model
with a tool error); ``finish_reason`` → a Converse stop reason; ``usage`` → :class:`Usage`, where cached
prompt tokens (``prompt_tokens_details.cached_tokens``, or DeepSeek's ``prompt_cache_hit_tokens``) count
as cache reads and the rest of ``prompt_tokens`` as input, and ``cache_creation_input_tokens`` (LiteLLM in
front of Anthropic) as cache writes; a count no call can have (infinite, NaN, over a billion) counts 0.
A reply of another shape (no choice, a message or a tool call that is not an object) is :class:`NotAChatCompletion`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from mneme.models.run import Usage
from mneme.ports.models import ModelResponse

STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filtered",
}
MAX_TOKENS_PER_CALL = 10**9  # a reported count above this is no count (see parse_usage)
_TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def to_chat_completions(request: dict[str, Any]) -> dict[str, Any]:
    """The Chat Completions body for a Converse-shaped ``request``."""
    messages: list[dict[str, Any]] = []
    system = [block["text"] for block in request.get("system") or [] if "text" in block]
    if system:
        messages.append({"role": "system", "content": "\n\n".join(system)})
    for message in request.get("messages") or []:
        blocks = message.get("content") or []
        if message.get("role") == "assistant":
            messages.append(_assistant(blocks))
        else:
            messages.extend(_user(blocks))
    body: dict[str, Any] = {"model": request.get("modelId", ""), "messages": messages}
    tools = [
        _tool(entry["toolSpec"])
        for entry in (request.get("toolConfig") or {}).get("tools") or []
        if "toolSpec" in entry
    ]
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"  # llama.cpp's server ignores offered tools without it
    inference = request.get("inferenceConfig") or {}
    for source, target in (("maxTokens", "max_tokens"), ("temperature", "temperature"), ("topP", "top_p")):
        if inference.get(source) is not None:
            body[target] = inference[source]
    if inference.get("stopSequences"):
        body["stop"] = list(inference["stopSequences"])
    return body


def _text(blocks: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(block["text"]) for block in blocks if "text" in block)


def _assistant(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    text = _text(blocks)
    message: dict[str, Any] = {"role": "assistant", "content": text}  # "" not null: llama.cpp refuses null
    calls = [block["toolUse"] for block in blocks if "toolUse" in block]
    if calls:
        message["tool_calls"] = [
            {
                "id": call["toolUseId"],
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call.get("input") or {}, ensure_ascii=False),
                },
            }
            for call in calls
        ]
    return message


def _user(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in blocks:
        if "toolResult" in block:
            result = block["toolResult"]
            out.append({"role": "tool", "tool_call_id": result["toolUseId"], "content": _result_text(result)})
    text = _text(blocks)
    if text:
        out.append({"role": "user", "content": text})
    return out


def _result_text(result: dict[str, Any]) -> str:
    parts = []
    for item in result.get("content") or []:
        if "text" in item:
            parts.append(str(item["text"]))
        elif "json" in item:
            parts.append(json.dumps(item["json"], ensure_ascii=False, sort_keys=True))
    return "\n".join(parts)


# Limits some servers cannot compile into a grammar (llama.cpp crashed on maxLength 20,000); mneme's own
# validation of the tool input still enforces them.
_SERVER_UNSAFE = frozenset(
    {"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties"}
)


def _without_limits(schema: Any, names: bool = False) -> Any:
    """``schema`` without the limit keywords; ``names``: a ``properties`` map, whose keys are field names."""
    if isinstance(schema, dict):
        return {
            key: _without_limits(value, names=not names and key == "properties")
            for key, value in schema.items()
            if names or key not in _SERVER_UNSAFE
        }
    if isinstance(schema, list):
        return [_without_limits(item) for item in schema]
    return schema


def _tool(spec: dict[str, Any]) -> dict[str, Any]:
    schema = _without_limits((spec.get("inputSchema") or {}).get("json") or {"type": "object", "properties": {}})
    function = {"name": spec["name"], "description": spec.get("description", ""), "parameters": schema}
    return {"type": "function", "function": function}


class NotAChatCompletion(ValueError):
    """The endpoint's reply is JSON but not a Chat Completion (the text says which part is wrong)."""


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise NotAChatCompletion(f"{where} is not an object")
    return value


def _content_text(content: Any) -> str:
    """``content`` as text: a string, or the ``text`` parts of a list of typed parts (others are skipped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    return ""


def from_chat_completion(body: dict[str, Any]) -> ModelResponse:
    """A Chat Completions reply as a ModelResponse (Converse content blocks and stop reason)."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise NotAChatCompletion("it has no choices")
    choice = _object(choices[0], "choices[0]")
    message = _object(choice.get("message") or {}, "choices[0].message")
    content: list[dict[str, Any]] = []
    text = _content_text(message.get("content"))
    if text:
        content.append({"text": text})
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise NotAChatCompletion("choices[0].message.tool_calls is not a list")
    for position, raw_call in enumerate(calls, start=1):
        call = _object(raw_call, f"tool call {position}")
        function = _object(call.get("function") or {}, f"tool call {position}'s function")
        content.append(
            {
                "toolUse": {
                    "toolUseId": _tool_use_id(str(call.get("id") or ""), position, function),
                    "name": str(function.get("name") or ""),
                    "input": _arguments(function.get("arguments")),
                }
            }
        )
    reason = str(choice.get("finish_reason") or "")
    stop_reason = STOP_REASONS.get(reason, reason or "unknown")
    if any("toolUse" in block for block in content):
        stop_reason = "tool_use"  # some servers say "stop" next to tool calls
    return ModelResponse(content=content, stop_reason=stop_reason, usage=parse_usage(body.get("usage")))


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _tool_use_id(raw: str, position: int, function: dict[str, Any]) -> str:
    """The server's call id when Converse accepts it (``[a-zA-Z0-9_-]{1,64}``), else a stable stand-in."""
    if _TOOL_USE_ID.match(raw):
        return raw
    digest = hashlib.sha256(json.dumps([raw, position, function], sort_keys=True, default=str).encode()).hexdigest()
    return f"call_{digest[:24]}"


def parse_usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()

    def count(value: Any) -> int:
        """A token count; 0 for anything no call can have (negative, NaN, infinite, over a billion: DynamoDB
        stores at most 38 digits, and no context window is near that)."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TOKENS_PER_CALL:
            return 0
        return int(value)

    details = usage.get("prompt_tokens_details") or {}
    cached = count(details.get("cached_tokens") if isinstance(details, dict) else 0) or count(
        usage.get("prompt_cache_hit_tokens")
    )
    written = count(usage.get("cache_creation_input_tokens"))
    prompt = count(usage.get("prompt_tokens"))
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=count(usage.get("completion_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )
