"""System blocks: task context, sub-agent identity, skill catalog, re-attached skills, tool notice."""

from __future__ import annotations

from typing import Any

from mneme.context.system import SKILL_CATALOG_HEADER, SUBAGENT_DEFAULT_CONTEXT, TOOL_NOTICE
from tests.unit.context.fixtures import build, master_input, subagent_input


def _texts(request: dict[str, Any]) -> list[str]:
    return [block["text"] for block in request.get("system", []) if "text" in block]


def test_task_context_variables_are_resolved_in_block_one() -> None:
    # Given the fixture master agent
    # When the context is assembled
    texts = _texts(build(master_input()).request)

    # Then block 1 is the resolved task context
    assert texts[0] == "You are the personal assistant of Anna Schmidt.\nThis chat is chat-42."


def test_master_without_task_context_has_no_block_one() -> None:
    # Given a master run without a task context
    # When the context is assembled
    texts = _texts(build(master_input(task_context="")).request)

    # Then the first block is the skill catalog
    assert texts[0].startswith(SKILL_CATALOG_HEADER)


def test_subagent_gets_its_identity_notice_after_a_blank_line() -> None:
    # Given the Email Agent at depth 1
    # When its context is assembled
    block = _texts(build(subagent_input()).request)[0]

    # Then its own task context comes first, then a blank line and a notice naming its label
    context, notice = block.split("\n\n", 1)
    assert context == "You write clear, friendly emails for Anna Schmidt."
    assert '"Email Agent"' in notice
    assert "specialist" in notice
    assert "own tools directly" in notice
    assert "Never delegate this request to yourself" in notice


def test_subagent_without_task_context_gets_a_neutral_default_and_the_notice() -> None:
    # Given a sub-agent without a task context
    # When its context is assembled
    block = _texts(build(subagent_input(task_context="")).request)[0]

    # Then block 1 is the one-line default followed by the identity notice
    assert block.startswith(SUBAGENT_DEFAULT_CONTEXT + "\n\n")
    assert '"Email Agent"' in block


def test_subagent_does_not_see_the_masters_task_context() -> None:
    # Given / When
    request = build(subagent_input()).request

    # Then nothing of the master's task context is in its system blocks
    assert all("personal assistant" not in text for text in _texts(request))


def test_skill_catalog_lists_skills_sorted_by_name() -> None:
    # Given the two fixture skills (declared out of order, one with when_to_use)
    # When the context is assembled
    catalog = _texts(build(master_input()).request)[1]

    # Then the catalog starts with the literal header and lists one line per skill, sorted
    assert catalog.split("\n") == [
        SKILL_CATALOG_HEADER,
        "- **email-style**: Writes emails in the user's house style. Use it for every email draft.",
        "- **trip-planning**: Plans trips: routes, bookings, packing lists.",
    ]


def test_no_skill_catalog_without_skills() -> None:
    # Given / When
    texts = _texts(build(master_input(skills=())).request)

    # Then
    assert not any(text.startswith(SKILL_CATALOG_HEADER) for text in texts)


def test_reattached_skills_follow_the_catalog_as_separate_blocks() -> None:
    # Given two skills re-attached by the rolling summary
    reattached = ('<skill_content name="a">A</skill_content>', '<skill_content name="b">B</skill_content>')

    # When the context is assembled
    texts = _texts(build(master_input(reattached_skill_blocks=reattached)).request)

    # Then they come right after the catalog, before the tool notice
    assert texts[2:] == [*reattached, TOOL_NOTICE]


def test_tool_notice_only_when_tools_are_offered() -> None:
    # Given an agent without tools, skills or tool history
    ctx = master_input(enabled_tools=(), external_tools=(), skills=(), history=())

    # When the context is assembled
    texts = _texts(build(ctx).request)

    # Then only the task context is there
    assert texts == ["You are the personal assistant of Anna Schmidt.\nThis chat is chat-42."]


def test_no_system_field_when_there_is_no_system_block() -> None:
    # Given a master without task context, skills or tools
    ctx = master_input(task_context="", enabled_tools=(), external_tools=(), skills=(), history=())

    # When the context is assembled
    request = build(ctx).request

    # Then the request has no system field and no cache point there
    assert "system" not in request
    assert [m["role"] for m in request["messages"]] == ["user"]


def test_block_sizes_and_cache_points_are_reported() -> None:
    # Given / When
    assembled = build(master_input())

    # Then every part has a size and the context_built fields carry them
    assert set(assembled.block_sizes) == {
        "task_context",
        "skill_catalog",
        "reattached_skills",
        "tool_notice",
        "tools",
        "history",
        "memory",
        "user_message",
    }
    assert assembled.block_sizes["reattached_skills"] == 0
    assert assembled.block_sizes["memory"] > 0
    assert assembled.cache_points == 3
