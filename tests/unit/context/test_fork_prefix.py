"""The fork prefix (issue 35.4): cut from a parent's request at its last message cache point, joined in
front of the child's turns."""

from __future__ import annotations

from typing import Any

from mneme.context.fork import ForkPrefix, after_prefix, instructions, prefix_of
from mneme.context.packing import pack

CP = {"cachePoint": {"type": "default"}}


def _request(*messages: dict[str, Any]) -> dict[str, Any]:
    return {
        "toolConfig": {"tools": [{"toolSpec": {"name": "memory-search"}}, CP]},
        "system": [{"text": "parent system"}, CP],
        "messages": list(messages),
    }


def test_the_prefix_ends_at_the_last_message_cache_point_without_the_markers() -> None:
    request = _request(
        {"role": "user", "content": [{"text": "q1"}]},
        {"role": "assistant", "content": [{"text": "a1"}, CP]},
        {"role": "user", "content": [{"text": "q2 + suffix"}]},
    )
    prefix = prefix_of(request)
    assert prefix.tools == [{"toolSpec": {"name": "memory-search"}}]
    assert prefix.system == [{"text": "parent system"}]
    assert prefix.messages == [
        {"role": "user", "content": [{"text": "q1"}]},
        {"role": "assistant", "content": [{"text": "a1"}]},
    ]


def test_a_cache_point_inside_a_turn_keeps_only_the_blocks_before_it() -> None:
    request = _request({"role": "user", "content": [{"text": "result"}, CP, {"text": "current"}]})
    assert prefix_of(request).messages == [{"role": "user", "content": [{"text": "result"}]}]


def test_without_a_message_cache_point_the_prefix_holds_no_message() -> None:
    request = _request({"role": "user", "content": [{"text": "q"}]})
    assert prefix_of(request).messages == []


def test_a_user_turn_meeting_the_prefix_s_user_turn_joins_it_and_the_current_block_moves() -> None:
    prefix = ForkPrefix(messages=[{"role": "user", "content": [{"text": "result"}]}])
    packed, end = after_prefix(prefix, pack([], "child input"))
    assert packed.messages == [{"role": "user", "content": [{"text": "result"}, {"text": "child input"}]}]
    assert (packed.current_turn, packed.current_block, end) == (0, 1, (0, 1))


def test_a_user_turn_after_an_assistant_prefix_is_a_turn_of_its_own() -> None:
    prefix = ForkPrefix(
        messages=[{"role": "user", "content": [{"text": "q"}]}, {"role": "assistant", "content": [{"text": "a"}]}]
    )
    packed, end = after_prefix(prefix, pack([], "child input"))
    assert [m["role"] for m in packed.messages] == ["user", "assistant", "user"]
    assert (packed.current_turn, packed.current_block, end) == (2, 0, (1, 1))


def test_the_child_s_own_instructions_come_before_its_input() -> None:
    text = instructions(["own context"], "the input")
    assert text.index("own context") < text.index("the input") and text.endswith("the input")
    assert instructions([], "the input") == "the input"
