"""Fork delegation (issue 35.4): a sub-agent whose first request starts with its parent's cacheable prefix.

A ``fork`` child is sent the parent's ``toolConfig`` and ``system`` blocks and the parent's messages up to
the parent's last message cache point, byte for byte (cache-point markers are left out here and placed
again by the assembler at the same spots), so the provider's prompt cache written by the parent is read
by the child. What is the child's own comes **after** that prefix, in its current user message: its own
task context and identity notice (its system blocks, :func:`instructions`), then the delegation input,
then the volatile suffix. The tools it may *call* are its own agent's that the parent's tool list also
holds (the assembler's ``offered_tools``); the parent's other tool specs stay in the prefix, unusable.

Pure functions: no I/O.
"""

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict

from mneme.context.caching import is_cache_point
from mneme.context.packing import Packed

INSTRUCTIONS_HEADER = "[Sub-agent instructions — these replace the system prompt above for this request]"


class ForkPrefix(BaseModel, defer_build=True):
    """The parent's cacheable prefix, as sent (Converse blocks, cache points removed)."""

    model_config = ConfigDict(frozen=True)

    tools: list[dict[str, Any]] = []
    system: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []  # up to the parent's last message cache point; [] when it had none


def _without_cache_points(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [copy.deepcopy(block) for block in blocks if not is_cache_point(block)]


def prefix_of(request: dict[str, Any]) -> ForkPrefix:
    """The cacheable prefix of a parent's Converse request: its tools, its system blocks and its messages up
    to the last cache point among them (none when no message carries one)."""
    messages: list[dict[str, Any]] = request.get("messages", [])
    cut: tuple[int, int] | None = None
    for turn_index, message in enumerate(messages):
        for block_index, block in enumerate(message["content"]):
            if is_cache_point(block):
                cut = (turn_index, block_index)
    kept: list[dict[str, Any]] = []
    if cut is not None:
        turn_index, block_index = cut
        kept = [{"role": m["role"], "content": _without_cache_points(m["content"])} for m in messages[:turn_index]]
        last = _without_cache_points(messages[turn_index]["content"][:block_index])
        if last:
            kept.append({"role": messages[turn_index]["role"], "content": last})
    return ForkPrefix(
        tools=_without_cache_points(request.get("toolConfig", {}).get("tools", [])),
        system=_without_cache_points(request.get("system", [])),
        messages=kept,
    )


def instructions(system_texts: list[str], user_text: str) -> str:
    """The child's current user text: its own system blocks under a header, then the delegation input."""
    if not system_texts:
        return user_text
    return "\n\n".join([INSTRUCTIONS_HEADER, *system_texts, "[Delegated request]", user_text])


def after_prefix(prefix: ForkPrefix, packed: Packed) -> tuple[Packed, tuple[int, int] | None]:
    """The child's packed turns behind the parent's messages, and where the prefix ends (``(turn, block)``,
    where the parent's last cache point stood; None without prefix messages). A user turn meeting the
    prefix's last user turn joins it (roles alternate), so the current text block's position moves with it."""
    head = copy.deepcopy(prefix.messages)
    end = (len(head) - 1, len(head[-1]["content"])) if head else None
    tail = packed.messages
    turn, block = packed.current_turn, packed.current_block
    if head and tail and head[-1]["role"] == tail[0]["role"]:
        joined = len(head[-1]["content"])
        head[-1]["content"].extend(tail[0]["content"])
        tail = tail[1:]
        if turn == 0:
            block += joined
        turn += len(head) - 1
    else:
        turn += len(head)
    return Packed([*head, *tail], turn, block, packed.tool_names), end
