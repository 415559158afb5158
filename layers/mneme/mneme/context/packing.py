"""Converse packing of a chat history (SPEC §3 "Converse packing", §6).

Rules, applied to the flat stored messages:

* system messages never become Converse messages (they are dropped), nor do blank text messages;
* text → ``{"text"}``; a tool call → a ``toolUse`` block in an assistant turn; a tool result → a
  ``toolResult`` block in a user turn; consecutive messages of one role share one turn, so roles
  alternate and consecutive tool results form one user turn (results before texts in that turn);
* a tool call is kept only when its result is in the user turn right after the call's assistant turn,
  and a result only with its call: orphans on either side are dropped (duplicate ids: first wins);
* reasoning blocks (``ReasoningMessage``, Claude's signed thinking) are packed only from ``continuation``
  — the run's own tool loop, where Bedrock requires each assistant turn that calls tools to come back with
  its reasoning blocks verbatim and **first** — and only in an assistant turn that keeps a tool call. Every
  edited or earlier history (a later turn of the chat, a rolling summary, a sub-agent's inherited history)
  never replays a signed block: the model ignores the thinking of earlier turns anyway, and a stale
  signature next to edited messages is a validation error;
* the conversation starts with a user turn: leading assistant turns are **dropped** (a Converse request
  must open with a user turn, and an invented user message would put words in the user's mouth);
* the current user message (text + volatile suffix) follows the history; when the history ends with a
  user turn (e.g. tool results, or the parent's message of a delegation) it is appended to that turn as
  its last text block. ``continuation`` (the current run's own tool turns, for the second and later
  model calls of one run) follows the current message.

The result records where the current text block sits, so cache points can be placed before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mneme.context.tools import canonical_json
from mneme.models import ReasoningMessage, SystemMessage, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.models import ChatMessage

EMPTY_TOOL_RESULT = "(no output)"


class _Current(Record):
    """Stand-in for the current user message inside the item list."""

    text: str


_Item = TextMessage | ToolCallMessage | ToolResultMessage | ReasoningMessage | _Current


class _Turn(Record, frozen=False):
    role: str
    items: list[_Item]


class Packed(Record):
    """Packed messages and the position of the current text block (``messages[turn]["content"][block]``)."""

    messages: list[dict[str, Any]]
    current_turn: int
    current_block: int
    tool_names: tuple[str, ...]  # names of the tools used by the kept toolUse blocks, sorted


def _role(item: _Item) -> str:
    if isinstance(item, ToolCallMessage | ReasoningMessage):
        return "assistant"
    if isinstance(item, TextMessage):
        return item.role
    return "user"  # tool results and the current message


def _admissible(messages: Sequence[ChatMessage | _Current]) -> list[_Item]:
    """Drop system and blank messages, and repeated call / result ids."""
    items: list[_Item] = []
    calls: set[str] = set()
    results: set[str] = set()
    for message in messages:
        if isinstance(message, SystemMessage):
            continue
        if isinstance(message, _Current | ReasoningMessage):
            items.append(message)
        elif isinstance(message, TextMessage):
            if message.text.strip():
                items.append(message)
        elif isinstance(message, ToolCallMessage):
            if message.call_id not in calls:
                calls.add(message.call_id)
                items.append(message)
        elif message.call_id not in results:
            results.add(message.call_id)
            items.append(message)
    return items


def _group(items: Sequence[_Item]) -> list[_Turn]:
    turns: list[_Turn] = []
    for item in items:
        role = _role(item)
        if turns and turns[-1].role == role:
            turns[-1].items.append(item)
        else:
            turns.append(_Turn(role, [item]))
    return turns


def _paired_call_ids(turns: Sequence[_Turn]) -> set[str]:
    paired: set[str] = set()
    for index, turn in enumerate(turns[:-1]):
        following = turns[index + 1]
        if turn.role != "assistant" or following.role != "user":
            continue
        calls = {item.call_id for item in turn.items if isinstance(item, ToolCallMessage)}
        paired |= calls & {item.call_id for item in following.items if isinstance(item, ToolResultMessage)}
    return paired


def _bound_reasoning(turn: _Turn, paired: set[str]) -> bool:
    """Reasoning blocks stay only in an assistant turn that keeps one of its tool calls."""
    return any(isinstance(item, ToolCallMessage) and item.call_id in paired for item in turn.items)


def _clean(items: list[_Item]) -> list[_Turn]:
    """Drop leading assistant turns, orphan tool blocks and unbound reasoning until nothing changes."""
    while True:
        turns = _group(items)
        while turns and turns[0].role == "assistant":
            turns.pop(0)
        paired = _paired_call_ids(turns)
        kept = [
            item
            for turn in turns
            for item in turn.items
            if (not isinstance(item, ToolCallMessage | ToolResultMessage) or item.call_id in paired)
            and (not isinstance(item, ReasoningMessage) or _bound_reasoning(turn, paired))
        ]
        if len(kept) == len(items):
            return turns
        items = kept


def _block(item: _Item, current_text: str) -> dict[str, Any]:
    if isinstance(item, ToolCallMessage):
        arguments = canonical_json(item.arguments)
        return {"toolUse": {"toolUseId": item.call_id, "name": item.tool, "input": arguments}}
    if isinstance(item, ToolResultMessage):
        content = [{"text": item.content or EMPTY_TOOL_RESULT}]
        return {"toolResult": {"toolUseId": item.call_id, "content": content, "status": item.status}}
    if isinstance(item, _Current):
        return {"text": current_text}
    if isinstance(item, ReasoningMessage):
        return item.to_block()
    return {"text": item.text}


def _ordered(turn: _Turn) -> list[_Item]:
    if turn.role == "assistant":  # reasoning first, then text and tool calls in their order
        reasoning = [item for item in turn.items if isinstance(item, ReasoningMessage)]
        return [*reasoning, *(item for item in turn.items if not isinstance(item, ReasoningMessage))]
    results = [item for item in turn.items if isinstance(item, ToolResultMessage)]
    return [*results, *(item for item in turn.items if not isinstance(item, ToolResultMessage))]


def pack(
    history: Sequence[ChatMessage],
    current_text: str,
    continuation: Sequence[ChatMessage] = (),
) -> Packed:
    """Pack ``history`` + the current user message (already with its suffix) + ``continuation``."""
    current = _Current(current_text)
    earlier = [message for message in history if not isinstance(message, ReasoningMessage)]
    turns = _clean(_admissible([*earlier, current, *continuation]))
    messages: list[dict[str, Any]] = []
    position = (0, 0)
    tools: set[str] = set()
    for turn_index, turn in enumerate(turns):
        content: list[dict[str, Any]] = []
        for item in _ordered(turn):
            if item is current:
                position = (turn_index, len(content))
            if isinstance(item, ToolCallMessage):
                tools.add(item.tool)
            content.append(_block(item, current_text))
        messages.append({"role": turn.role, "content": content})
    return Packed(messages, position[0], position[1], tuple(sorted(tools)))
