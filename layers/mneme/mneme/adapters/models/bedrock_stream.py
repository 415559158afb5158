"""Bedrock ``ConverseStream`` (issue 15.2): the model's text reaches the run's live followers while it is
generated, and the call still returns exactly what ``Converse`` would have (the same ModelResponse).

The stream's events are folded back into a Converse-shaped message — text blocks from their deltas,
``toolUse`` blocks from their start and their input's JSON pieces, ``reasoningContent`` from its text and
signature deltas — with the stop reason of ``messageStop`` and the usage of ``metadata``, and then parsed by
:func:`mneme.adapters.models.bedrock.parse_converse_response` like a Converse answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any


class _Block:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.tool: dict[str, Any] | None = None
        self.tool_input: list[str] = []
        self.reasoning: list[str] = []
        self.signature = ""

    def to_converse(self) -> dict[str, Any] | None:
        if self.tool is not None:
            raw = "".join(self.tool_input)
            return {"toolUse": {**self.tool, "input": json.loads(raw) if raw.strip() else {}}}
        if self.reasoning or self.signature:
            text: dict[str, Any] = {"text": "".join(self.reasoning)}
            if self.signature:
                text["signature"] = self.signature
            return {"reasoningContent": {"reasoningText": text}}
        if self.text:
            return {"text": "".join(self.text)}
        return None


def fold_stream(events: Iterable[dict[str, Any]], on_text: Callable[[str], None]) -> dict[str, Any]:
    """A Converse-shaped response from ConverseStream events; each text delta is handed to ``on_text``."""
    blocks: dict[int, _Block] = {}
    stop_reason, usage = None, None
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool = (start.get("start") or {}).get("toolUse")
            block = blocks.setdefault(int(start.get("contentBlockIndex", 0)), _Block())
            if tool:
                block.tool = {"toolUseId": tool["toolUseId"], "name": tool["name"]}
        elif "contentBlockDelta" in event:
            body = event["contentBlockDelta"]
            block = blocks.setdefault(int(body.get("contentBlockIndex", 0)), _Block())
            delta = body.get("delta") or {}
            if "text" in delta:
                block.text.append(delta["text"])
                on_text(delta["text"])
            elif "toolUse" in delta:
                block.tool_input.append(str(delta["toolUse"].get("input", "")))
            elif "reasoningContent" in delta:
                reasoning = delta["reasoningContent"]
                block.reasoning.append(str(reasoning.get("text", "")))
                block.signature += str(reasoning.get("signature", ""))
        elif "messageStop" in event:
            stop_reason = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            usage = event["metadata"].get("usage")
    content = [b for b in (blocks[i].to_converse() for i in sorted(blocks)) if b is not None]
    return {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": stop_reason, "usage": usage}
