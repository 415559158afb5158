"""Skill activation and re-attachment after a rolling summary (SPEC §4).

* ``activate_skill(name)`` is the internal tool the model calls; it answers with the skill's content in
  the envelope ``<skill_content name="NAME">…</skill_content>``. A name that does not exist, or exists
  but is not assigned to the agent, is a :class:`~mneme.errors.ToolError` naming the available skills.
* When the rolling summary compresses the part of a chat in which skills were activated, those skills
  are re-attached after the summary as system blocks — same envelope, in order of first activation,
  each block capped at 5,000 tokens and all blocks together at 25,000 tokens (characters ÷ 4). A cut
  block ends with a clear truncation marker; a skill that no longer fits at all is left out (the model
  can still activate it again from the skill catalog).

Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from mneme.errors import ToolError
from mneme.models import ChatMessage, Skill, ToolCallMessage, ToolResultMessage
from mneme.spec_limits import CHARS_PER_TOKEN, SKILL_REATTACH_TOKENS_EACH, SKILL_REATTACH_TOKENS_TOTAL

ACTIVATE_SKILL_TOOL = "activate_skill"

REATTACH_MAX_CHARS_EACH = SKILL_REATTACH_TOKENS_EACH * CHARS_PER_TOKEN  # 20,000
REATTACH_MAX_CHARS_TOTAL = SKILL_REATTACH_TOKENS_TOTAL * CHARS_PER_TOKEN  # 100,000

_ENVELOPE_NAME = re.compile(r'^\s*<skill_content name="([^"]+)">')


def skill_envelope(name: str, content: str) -> str:
    """The one envelope used both by ``activate_skill`` and by re-attachment."""
    return f'<skill_content name="{name}">\n{content}\n</skill_content>'


def _truncation_marker(name: str) -> str:
    return (
        f'\n[… skill "{name}" truncated here: re-attached skills are limited to '
        f"{SKILL_REATTACH_TOKENS_EACH:,} tokens each and {SKILL_REATTACH_TOKENS_TOTAL:,} tokens in total; "
        f'call {ACTIVATE_SKILL_TOOL}("{name}") for the full text]'
    )


def _available_text(names: Iterable[str]) -> str:
    listed = sorted(names)
    return f"available skills: {', '.join(listed)}" if listed else "this agent has no skills"


def skill_name_argument(arguments: Mapping[str, Any]) -> str:
    """The ``name`` argument of an ``activate_skill`` call; a missing or blank name is a tool error."""
    name = arguments.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ToolError(f'{ACTIVATE_SKILL_TOOL} needs a "name" argument (a skill name)', field="name")
    return name.strip()


def activate_skill(name: str, assigned: Mapping[str, Skill], *, existing: Collection[str] = ()) -> str:
    """The tool result of ``activate_skill(name)``.

    ``assigned`` maps the agent's assigned (and loadable) skills by name; ``existing`` optionally lists
    other skill names the user could see, only to tell "not assigned" apart from "unknown" in the error.
    Names are matched ignoring surrounding whitespace and case (skill names are lowercase slugs).
    """
    wanted = name.strip().lower()
    skill = assigned.get(wanted)
    if skill is not None:
        return skill_envelope(skill.name, skill.content)
    available = _available_text(assigned)
    if wanted in {known.lower() for known in existing}:
        raise ToolError(f'skill "{wanted}" is not assigned to this agent; {available}', field="name")
    raise ToolError(f'unknown skill "{wanted}"; {available}', field="name")


def activated_skill_names(messages: Iterable[ChatMessage]) -> list[str]:
    """Names of the skills successfully activated in ``messages``, in order of first activation.

    A skill counts when an ``activate_skill`` tool result with status ``success`` is present; its name is
    taken from the matching tool call's ``name`` argument, else from the result's envelope.
    """
    calls: dict[str, ToolCallMessage] = {}
    names: list[str] = []
    for message in messages:
        if isinstance(message, ToolCallMessage) and message.tool == ACTIVATE_SKILL_TOOL:
            calls[message.call_id] = message
            continue
        if not isinstance(message, ToolResultMessage) or message.status != "success":
            continue
        call = calls.get(message.call_id)
        if call is None and message.tool != ACTIVATE_SKILL_TOOL:
            continue
        name = _name_of(call, message)
        if name and name not in names:
            names.append(name)
    return names


def _name_of(call: ToolCallMessage | None, result: ToolResultMessage) -> str | None:
    if call is not None:
        argument = call.arguments.get("name")
        if isinstance(argument, str) and argument.strip():
            return argument.strip().lower()
    match = _ENVELOPE_NAME.match(result.content)
    return match.group(1).strip().lower() if match else None


def _capped_block(skill: Skill, limit: int) -> str | None:
    """The skill's envelope, at most ``limit`` characters; ``None`` when not even a marker fits."""
    block = skill_envelope(skill.name, skill.content)
    if len(block) <= limit:
        return block
    marker = _truncation_marker(skill.name)
    room = limit - len(skill_envelope(skill.name, "")) - len(marker)
    if room <= 0:
        return None
    return skill_envelope(skill.name, skill.content[:room].rstrip() + marker)


def reattach_blocks(
    names: Iterable[str],
    skills: Mapping[str, Skill],
    *,
    max_chars_each: int = REATTACH_MAX_CHARS_EACH,
    max_chars_total: int = REATTACH_MAX_CHARS_TOTAL,
) -> list[str]:
    """System-block texts re-attaching the named skills (in the given order) within the caps.

    Names no longer present in ``skills`` (unassigned since) are skipped. Each block (envelope included)
    is at most ``max_chars_each`` characters and all blocks together at most ``max_chars_total``.
    """
    blocks: list[str] = []
    remaining = max_chars_total
    for name in dict.fromkeys(names):
        skill = skills.get(name)
        if skill is None:
            continue
        block = _capped_block(skill, min(max_chars_each, remaining))
        if block is None:
            continue
        blocks.append(block)
        remaining -= len(block)
    return blocks
