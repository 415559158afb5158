"""The deterministic offline model (SPEC §11): provider ``offline``, no network, same port as Bedrock.

It reads the **raw** text of the latest user message of the Converse request. That turn's text carries
the volatile suffix (SPEC §3: the memory block and the date/time line), which must never be obeyed, so
the raw text is everything before the first line that starts with ``RELEVANT CONTEXT FROM LONG-TERM
MEMORY:`` or ``[Context — current date/time:``. When the latest user turn has several text blocks (two
user turns merged for a sub-agent, SPEC §6), the last block with raw text counts; a block that is only
suffix is skipped. (A user text containing a line that starts with one of the two headers is cut there:
an accepted limitation of the offline model.)

Directives, one per line (leading spaces allowed), all emitted as tool calls in one turn:

* ``/delegate <agent> :: <input>``   → ``delegate-to-agent {agent, input}``
* ``/search <query>``                → ``memory-search {query}``
* ``/skill <name>``                  → ``activate_skill {name}``
* ``/write <namespace> :: <content>`` → ``memory-write {namespace, content}``
* ``/tool <name> [<json object>]``   → ``<name>`` with those arguments (none → ``{}``); an MCP server's tool
  by its offered name, e.g. ``/tool weather__forecast {"city": "Paris"}``

Other lines (and unknown ``/words``) are plain text. A directive that cannot be parsed (missing
``::`` or argument, arguments that are not a JSON object or nest more than 64 levels deep, text that is not
valid Unicode) or that names a tool absent from
``toolConfig`` produces no tool call; it is explained in a text block starting ``offline:`` — next to
the tool calls of the valid directives, or as the whole answer (``end_turn``) when none is valid.

When the latest user turn ends with ``toolResult`` blocks, the answer is
``offline: tool results:`` followed by one line ``- <tool>: <content>`` per result
(``- <tool> (error): …`` for errors). Without directives the answer is ``offline: <raw user text>``.
Tool-use ids are ``call-<n>-<10 hex>``, hashed from the message count, position, tool and arguments.
Usage is estimated as characters ÷ 4; cache tokens are 0.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from typing import Any

from mneme.json_depth import text_depth_exceeds, too_deep_message
from mneme.memory.extraction import EXTRACTION_MARKER, offline_extract, requested_strategies
from mneme.models.run import Usage
from mneme.ports.models import ModelResponse
from mneme.records import Record

SUFFIX_MARKERS = ("RELEVANT CONTEXT FROM LONG-TERM MEMORY:", "[Context — current date/time:")
ANSWER_PREFIX = "offline"


class _Call(Record):
    name: str
    arguments: dict[str, Any]


def raw_user_text(text: str) -> str:
    """``text`` without the volatile suffix: everything before the first suffix header line."""
    kept: list[str] = []
    for line in text.split("\n"):
        if line.lstrip().startswith(SUFFIX_MARKERS):
            break
        kept.append(line)
    return "\n".join(kept).strip()


class OfflineModel:
    """A ModelClient that answers from directives in the user's text, deterministically."""

    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        system = "".join(str(block.get("text", "")) for block in request.get("system") or [])
        if system.startswith(EXTRACTION_MARKER):  # memory extraction: the deterministic rule-based extractor
            return _extraction_answer(request, system)
        messages: list[dict[str, Any]] = list(request.get("messages") or [])
        last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
        blocks = [b for b in (last_user or {}).get("content") or [] if "cachePoint" not in b]
        if blocks and "toolResult" in blocks[-1]:
            content = [{"text": _results_answer(messages, blocks)}]
            stop_reason = "end_turn"
        else:
            content, stop_reason = _directive_answer(request, messages, _latest_raw_text(blocks))
        return ModelResponse(content=content, stop_reason=stop_reason, usage=_usage(request, content))

    def converse_stream(
        self, request: dict[str, Any], on_text: Callable[[str], None], *, timeout_seconds: float | None = None
    ) -> ModelResponse:
        """The same answer, its text handed to ``on_text`` a word at a time (as a streaming model would)."""
        response = self.converse(request)
        for piece in re.findall(r"\S+\s*|\s+", response.text):
            on_text(piece)
        return response


def _extraction_answer(request: dict[str, Any], system: str) -> ModelResponse:
    turn = "".join(str(b.get("text", "")) for m in request.get("messages") or [] for b in m.get("content") or [])
    user_input = turn.split("USER:\n", 1)[-1].split("\n\nASSISTANT:", 1)[0]
    strategies = requested_strategies(system)
    content = [{"text": offline_extract(user_input, strategies).model_dump_json()}]
    return ModelResponse(content=content, stop_reason="end_turn", usage=_usage(request, content))


def _latest_raw_text(blocks: list[dict[str, Any]]) -> str:
    for block in reversed(blocks):
        if "text" in block:
            raw = raw_user_text(str(block["text"]))
            if raw:
                return raw
    return ""


def _directive_answer(
    request: dict[str, Any], messages: list[dict[str, Any]], text: str
) -> tuple[list[dict[str, Any]], str]:
    offered = _offered_tools(request)
    calls: list[_Call] = []
    notes: list[str] = []
    found = False
    for line in text.split("\n"):
        parsed = _parse_directive(line.strip())
        if parsed is None:
            continue
        found = True
        if isinstance(parsed, str):
            notes.append(parsed)
        elif parsed.name not in offered:
            notes.append(f"tool {parsed.name!r} is not available")
        else:
            calls.append(parsed)
    if not found:
        return [{"text": f"{ANSWER_PREFIX}: {text}"}], "end_turn"
    content: list[dict[str, Any]] = []
    if notes:
        content.append({"text": f"{ANSWER_PREFIX}: " + "; ".join(notes)})
    for n, call in enumerate(calls, start=1):
        content.append(
            {
                "toolUse": {
                    "toolUseId": _call_id(len(messages), n, call),
                    "name": call.name,
                    "input": call.arguments,
                }
            }
        )
    return content, ("tool_use" if calls else "end_turn")


_TWO_PART = {
    "delegate": ("delegate-to-agent", "agent", "input"),
    "write": ("memory-write", "namespace", "content"),
}
_ONE_PART = {"search": ("memory-search", "query"), "skill": ("activate_skill", "name")}


def _parse_directive(line: str) -> _Call | str | None:
    """A tool call, an explanation (str) for a malformed directive, or None for a plain text line."""
    if not line.startswith("/"):
        return None
    word, _, rest = line[1:].partition(" ")
    rest = rest.strip()
    if word in _TWO_PART:
        tool, first, second = _TWO_PART[word]
        target, sep, body = rest.partition("::")
        target, body = target.strip(), body.strip()
        if sep and target and body:
            return _Call(tool, {first: target, second: body})
        return f"cannot parse {line!r} (expected /{word} <{first}> :: <{second}>)"
    if word in _ONE_PART:
        tool, key = _ONE_PART[word]
        return _Call(tool, {key: rest}) if rest else f"cannot parse {line!r} (expected /{word} <{key}>)"
    if word == "tool":
        return _parse_tool(line, rest)
    return None


def _parse_tool(line: str, rest: str) -> _Call | str:
    name, _, raw_args = rest.partition(" ")
    if not name:
        return f"cannot parse {line!r} (expected /tool <name> <json-arguments>)"
    arguments = _tool_arguments(line, name, raw_args.strip())
    return arguments if isinstance(arguments, str) else _Call(name, arguments)


def _tool_arguments(line: str, name: str, raw_args: str) -> dict[str, Any] | str:
    """The JSON object of a ``/tool`` line, or why it is refused."""
    if not raw_args:
        return {}
    if text_depth_exceeds(raw_args):  # before json.loads, which recurses once per level
        return f"cannot parse the arguments of {name!r}: {too_deep_message('the JSON')}"
    try:
        arguments = json.loads(raw_args)
    except ValueError as exc:
        return f"cannot parse the arguments of {line!r}: invalid JSON ({exc})"
    if not isinstance(arguments, dict):
        return f"cannot parse the arguments of {line!r}: a JSON object is required"
    try:  # an escaped lone surrogate ("\\ud800") parses, but no real model can send it, nor can it be stored
        json.dumps(arguments, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return f"cannot parse the arguments of {name!r}: they are not valid Unicode text"
    return arguments


def _offered_tools(request: dict[str, Any]) -> set[str]:
    tools = (request.get("toolConfig") or {}).get("tools") or []
    return {str(t["toolSpec"]["name"]) for t in tools if "toolSpec" in t and "name" in t["toolSpec"]}


def _call_id(message_count: int, n: int, call: _Call) -> str:
    canonical = json.dumps([message_count, n, call.name, call.arguments], sort_keys=True, ensure_ascii=False)
    return f"call-{n}-{hashlib.sha256(canonical.encode()).hexdigest()[:10]}"


def _results_answer(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> str:
    names: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "assistant":
            for block in message.get("content") or []:
                if "toolUse" in block:
                    names[str(block["toolUse"].get("toolUseId"))] = str(block["toolUse"].get("name"))
    lines = [f"{ANSWER_PREFIX}: tool results:"]
    for block in blocks:
        if "toolResult" not in block:
            continue
        result = block["toolResult"]
        tool = names.get(str(result.get("toolUseId")), str(result.get("toolUseId")))
        label = f"{tool} (error)" if result.get("status") == "error" else tool
        lines.append(f"- {label}: {_result_text(result.get('content') or [])}")
    return "\n".join(lines)


def _result_text(content: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for item in content:
        if "text" in item:
            parts.append(str(item["text"]))
        elif "json" in item:
            parts.append(json.dumps(item["json"], sort_keys=True, ensure_ascii=False))
    return " ".join(parts)


def _usage(request: dict[str, Any], content: list[dict[str, Any]]) -> Usage:
    def estimate(value: Any) -> int:
        return math.ceil(len(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)) / 4)

    prompt = {key: request.get(key) for key in ("system", "messages", "toolConfig") if request.get(key)}
    return Usage(input_tokens=estimate(prompt), output_tokens=estimate(content))
