"""Prompt caching: a byte-identical prefix between requests, and cache points by model capability."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.context import cache_capabilities
from mneme.models import ModelSpec, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.spec_limits import MAX_CACHE_POINTS
from tests.unit.context.fixtures import (
    CLAUDE,
    HISTORY,
    HITS,
    NOVA,
    build,
    dumps,
    master_input,
    strip_cache_points,
    subagent_input,
)

CACHE_POINT = {"cachePoint": {"type": "default"}}


def _prefix(request: dict[str, Any]) -> str:
    """Everything before the current user message, as sent."""
    return dumps([request.get("toolConfig"), request.get("system"), request["messages"][:-1]])


def _positions(request: dict[str, Any]) -> list[str]:
    """Where the cache points are: ``tools``, ``system`` or ``messages[i]``."""
    found = [f"tools[{i}]" for i, b in enumerate(request.get("toolConfig", {}).get("tools", [])) if b == CACHE_POINT]
    found += [f"system[{i}]" for i, b in enumerate(request.get("system", [])) if b == CACHE_POINT]
    for index, message in enumerate(request["messages"]):
        found += [f"messages[{index}][{i}]" for i, b in enumerate(message["content"]) if b == CACHE_POINT]
    return found


def test_prefix_is_byte_identical_between_two_requests_of_one_chat() -> None:
    # Given two requests of the same chat, a day and some minutes apart, with other hits and another text
    first = build(master_input())
    later = build(
        master_input(
            now=datetime(2026, 12, 1, 17, 42, tzinfo=UTC),
            user_text="And what about the hotel?",
            memory_hits=HITS[1:],
        )
    )

    # When the parts before the current user message are serialized
    # Then they are the same bytes; only the last message differs
    assert _prefix(first.request) == _prefix(later.request)
    assert first.request["messages"][-1] != later.request["messages"][-1]


def test_next_turn_extends_the_previous_prefix() -> None:
    # Given turn 1, then turn 2 whose history holds turn 1's user text and the answer
    turn1 = build(master_input())
    answer = TextMessage(role="assistant", text="Here is a draft: ...")
    turn2 = build(
        master_input(
            history=(
                *HISTORY,
                TextMessage(role="user", text="Draft an email to Ben about the trip."),
                answer,
            ),
            user_text="Make it shorter.",
        )
    )

    # When cache points are set aside
    before = strip_cache_points(turn1.request)
    after = strip_cache_points(turn2.request)

    # Then tools and system are identical and turn 2's messages start with turn 1's history
    assert dumps(before["toolConfig"]) == dumps(after["toolConfig"])
    assert dumps(before["system"]) == dumps(after["system"])
    history1 = before["messages"][:-1]
    assert dumps(after["messages"][: len(history1)]) == dumps(history1)


def test_claude_gets_cache_points_after_tools_system_and_last_history_message() -> None:
    # Given a Claude model and a chat whose history ends with an assistant turn
    ctx = master_input()

    # When the context is assembled
    request = build(ctx).request

    # Then the cache points close the tools, the system blocks and the last history turn
    last_history = len(request["messages"]) - 2
    tools, system = request["toolConfig"]["tools"], request["system"]
    assert _positions(request) == [
        f"tools[{len(tools) - 1}]",
        f"system[{len(system) - 1}]",
        f"messages[{last_history}][{len(request['messages'][last_history]['content']) - 1}]",
    ]


def test_merged_current_message_gets_its_cache_point_right_before_its_text() -> None:
    # Given a sub-agent whose history ends with the parent's user turn (merged with the delegation input)
    request = build(subagent_input()).request

    # When the last turn is inspected
    last = request["messages"][-1]["content"]

    # Then the cache point separates the parent's text from the delegation input
    assert last[-2] == CACHE_POINT
    assert last[-1]["text"].startswith("Write a short email to Ben")


def test_a_run_continuation_uses_the_fourth_cache_point_at_the_tail() -> None:
    # Given the second model call of a run: the run's own tool call and result follow the current message
    continuation = (
        ToolCallMessage(call_id="tooluse_crm_1", tool="crm-lookup", arguments={"name": "Ben"}),
        ToolResultMessage(call_id="tooluse_crm_1", tool="crm-lookup", content="Ben Ortiz, Porto"),
    )

    # When the context is assembled
    assembled = build(master_input(continuation=continuation))

    # Then there are exactly four cache points, the last one closing the tool result turn
    assert assembled.cache_points == MAX_CACHE_POINTS
    assert assembled.request["messages"][-1]["content"][-1] == CACHE_POINT
    assert assembled.request["messages"][-3]["content"][0]["text"].startswith("Draft an email to Ben")


@pytest.mark.parametrize("ctx", [master_input(), subagent_input(), master_input(history=())])
def test_never_more_than_four_cache_points(ctx: Any) -> None:
    # Given requests of several shapes
    # When they are assembled
    assembled = build(ctx)

    # Then each carries at most four cache points, and the count is reported
    assert 0 < assembled.cache_points <= MAX_CACHE_POINTS
    assert len(_positions(assembled.request)) == assembled.cache_points


@pytest.mark.parametrize(
    "model",
    [
        ModelSpec(provider="offline", model_id="offline"),
        ModelSpec(provider="openai-compatible", model_id="anthropic.claude-sonnet-4-5"),
        ModelSpec(provider="bedrock", model_id="meta.llama3-70b-instruct-v1:0"),
    ],
)
def test_models_without_caching_get_no_cache_points(model: ModelSpec) -> None:
    # Given a provider or model without prompt caching
    # When the context is assembled
    assembled = build(master_input(model=model))

    # Then no cache point is placed
    assert assembled.cache_points == 0
    assert _positions(assembled.request) == []


def test_nova_caches_system_and_messages_but_not_tools() -> None:
    # Given an Amazon Nova model with tools
    # When the context is assembled
    request = build(master_input(model=ModelSpec(provider="bedrock", model_id=NOVA))).request

    # Then the tools carry no cache point while system and history do
    assert CACHE_POINT not in request["toolConfig"]["tools"]
    assert request["system"][-1] == CACHE_POINT
    assert request["messages"][-2]["content"][-1] == CACHE_POINT


def test_cache_points_do_not_change_any_other_block() -> None:
    # Given the same context for a caching model and for a model without caching
    cached = build(master_input()).request
    plain = build(master_input(model=ModelSpec(provider="offline", model_id=CLAUDE))).request

    # When the cache points are removed from the cached request
    # Then both requests are the same bytes
    assert dumps(strip_cache_points(cached)) == dumps(plain | {"inferenceConfig": cached["inferenceConfig"]})


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", (True, True, True)),
        ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", (True, True, True)),
        ("global.anthropic.claude-haiku-4-5-20251001-v1:0", (True, True, True)),
        (
            "arn:aws:bedrock:eu-central-1:123456789012:inference-profile/eu.anthropic.claude-opus-4-1-v1:0",
            (True, True, True),
        ),
        ("amazon.nova-lite-v1:0", (True, True, False)),
        ("apac.amazon.nova-micro-v1:0", (True, True, False)),
        ("anthropic.claude-v2:1", (False, False, False)),
        ("mistral.mistral-large-2407-v1:0", (False, False, False)),
    ],
)
def test_capability_table(model_id: str, expected: tuple[bool, bool, bool]) -> None:
    # Given a Bedrock model id
    # When its caching capabilities are looked up
    caps = cache_capabilities("bedrock", model_id)

    # Then system / messages / tools support is as documented
    assert (caps.system, caps.messages, caps.tools) == expected
