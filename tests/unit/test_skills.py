"""Skill activation and re-attachment (SPEC §4)."""

from __future__ import annotations

import pytest

from mneme.errors import ToolError
from mneme.models import ChatMessage, Skill, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.skills import (
    REATTACH_MAX_CHARS_EACH,
    REATTACH_MAX_CHARS_TOTAL,
    activate_skill,
    activated_skill_names,
    reattach_blocks,
    skill_envelope,
    skill_name_argument,
)


def skill(name: str, content: str = "") -> Skill:
    return Skill(name=name, description=f"{name} skill", content=content or f"{name} instructions")


def activation(call_id: str, name: str, *, status: str = "success") -> list[ChatMessage]:
    return [
        ToolCallMessage(call_id=call_id, tool="activate_skill", arguments={"name": name}),
        ToolResultMessage(
            call_id=call_id,
            tool="activate_skill",
            content=skill_envelope(name, "...") if status == "success" else "Error: unknown skill",
            status="success" if status == "success" else "error",
        ),
    ]


ASSIGNED = {"email-writing": skill("email-writing", "Write short emails."), "review": skill("review")}


# ------------------------------------------------------------------------------------------- activation
def test_activation_wraps_the_content_in_the_envelope() -> None:
    # Given an assigned skill  # When activated
    text = activate_skill("email-writing", ASSIGNED)
    # Then its content comes in the skill_content envelope
    assert text == '<skill_content name="email-writing">\nWrite short emails.\n</skill_content>'


def test_activation_ignores_case_and_surrounding_space() -> None:
    # Given a name as a model might write it  # When activated  # Then the assigned skill is found
    assert activate_skill("  Email-Writing ", ASSIGNED) == activate_skill("email-writing", ASSIGNED)


def test_unknown_skill_is_a_tool_error_listing_the_available_names() -> None:
    # Given a name that exists nowhere  # When activated  # Then a tool error names the assigned skills
    with pytest.raises(ToolError, match=r'unknown skill "nope"; available skills: email-writing, review'):
        activate_skill("nope", ASSIGNED)


def test_unassigned_skill_is_a_tool_error() -> None:
    # Given a skill the user has but this agent was not assigned
    # When activated
    # Then a tool error says so and lists the assigned skills
    with pytest.raises(ToolError, match=r'"secret" is not assigned to this agent; available skills: email'):
        activate_skill("secret", ASSIGNED, existing={"secret", "review"})


def test_agent_without_skills_says_so_in_the_error() -> None:
    # Given no assigned skills  # When a skill is activated  # Then the error says there are none
    with pytest.raises(ToolError, match="this agent has no skills"):
        activate_skill("review", {})


@pytest.mark.parametrize("arguments", [{}, {"name": ""}, {"name": 3}], ids=["missing", "blank", "not-text"])
def test_missing_name_argument_is_a_tool_error(arguments: dict[str, object]) -> None:
    # Given activate_skill arguments without a usable name  # When read  # Then a tool error
    with pytest.raises(ToolError, match='needs a "name" argument'):
        skill_name_argument(arguments)


# ------------------------------------------------------------------------------------------- activated names
@pytest.mark.parametrize(
    ("messages", "names"),
    [
        pytest.param(
            [*activation("1", "review"), *activation("2", "email-writing")],
            ["review", "email-writing"],
            id="order-of-first-activation",
        ),
        pytest.param([*activation("1", "review"), *activation("2", "review")], ["review"], id="deduplicated"),
        pytest.param(activation("1", "review", status="error"), [], id="failed-activation-ignored"),
        pytest.param(activation("1", "review")[:1], [], id="call-without-result-ignored"),
        pytest.param(
            [ToolResultMessage(call_id="9", tool="activate_skill", content=skill_envelope("review", "x"))],
            ["review"],
            id="name-from-envelope",
        ),
        pytest.param([TextMessage(role="user", text=skill_envelope("review", "x"))], [], id="plain-text-ignored"),
    ],
)
def test_activated_skill_names(messages: list[ChatMessage], names: list[str]) -> None:
    # Given messages  # When scanned  # Then the successfully activated skills, in first-activation order
    assert activated_skill_names(messages) == names


# ------------------------------------------------------------------------------------------- re-attachment
def test_reattached_blocks_use_the_envelope_in_activation_order() -> None:
    # Given two activated skills and one no longer assigned
    names = ["review", "gone", "email-writing"]
    # When re-attached
    blocks = reattach_blocks(names, ASSIGNED)
    # Then each assigned one comes in its envelope, in the given order
    assert blocks == [
        skill_envelope("review", "review instructions"),
        skill_envelope("email-writing", "Write short emails."),
    ]


def test_each_reattached_skill_is_capped_at_5000_tokens() -> None:
    # Given a skill of 30,000 characters
    big = skill("big", "b" * 30_000)
    # When re-attached
    (block,) = reattach_blocks(["big"], {"big": big})
    # Then the block is at most 20,000 characters, still enveloped, and marked as truncated
    assert REATTACH_MAX_CHARS_EACH == 20_000
    assert len(block) <= 20_000
    assert block.startswith('<skill_content name="big">') and block.endswith("</skill_content>")
    assert 'skill "big" truncated here' in block


def test_reattached_skills_are_capped_at_25000_tokens_in_total() -> None:
    # Given seven skills of 19,000 characters each
    skills = {f"s{i}": skill(f"s{i}", "c" * 19_000) for i in range(7)}
    # When re-attached
    blocks = reattach_blocks(list(skills), skills)
    # Then five fit whole, the sixth is truncated into what remains, the seventh is left out
    assert REATTACH_MAX_CHARS_TOTAL == 100_000
    assert sum(len(block) for block in blocks) <= 100_000
    assert len(blocks) == 6
    assert all("truncated here" not in block for block in blocks[:5])
    assert 'skill "s5" truncated here' in blocks[5]
