"""The system blocks (SPEC §3): task context (+ sub-agent identity notice), skill catalog, re-attached
skills, tool notice. They form the stable prefix, so nothing in here may vary per request."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.models import Skill

SKILL_CATALOG_HEADER = (
    "SKILLS AVAILABLE — call activate_skill(name) BEFORE answering when the request matches a skill's description"
)
SUBAGENT_DEFAULT_CONTEXT = "You are a specialist assistant that handles requests delegated by another agent."
TOOL_NOTICE = (
    "When you call a tool, supply every argument that its input schema lists as required, with the type "
    "the schema gives; never leave a required argument out."
)


def identity_notice(label: str) -> str:
    """The sub-agent identity notice (our own words): who it is, that it does the work itself."""
    return (
        f'You are the agent "{label}", working as a sub-agent: another agent delegated this request to '
        "you because you are the specialist for it. Handle it yourself and call your own tools directly "
        f'when you need them. Never delegate this request to yourself ("{label}").'
    )


def task_context_block(resolved_context: str, *, depth: int, label: str) -> str:
    """Block 1: the resolved task context; for a sub-agent (depth > 0) followed by a blank line and the
    identity notice, with a neutral one-line default when it has no task context. A master without a
    task context gets ``""`` (no block)."""
    context = resolved_context.strip()
    if depth <= 0:
        return context
    return f"{context or SUBAGENT_DEFAULT_CONTEXT}\n\n{identity_notice(label)}"


_LINE_BREAKS = re.compile(r"\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]\s*")  # str.splitlines()'s breaks


def skill_line(skill: Skill) -> str:
    """One line of the catalog (SPEC §3: one line per skill): a line break in a description or its
    ``when_to_use`` is read as a space, so no skill's text can add a line, or a skill, to the catalog."""
    line = f"- **{skill.name}**: {_one_line(skill.description)}"
    when = _one_line(skill.when_to_use or "")
    return f"{line} {when}" if when else line


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub(" ", text.strip())


def skill_catalog(skills: Sequence[Skill]) -> str:
    """Block 2: the catalog (sorted by name), or ``""`` without skills."""
    unique = {skill.name: skill for skill in reversed(skills)}  # the first of a name wins
    if not unique:
        return ""
    lines = [skill_line(unique[name]) for name in sorted(unique)]
    return "\n".join([SKILL_CATALOG_HEADER, *lines])


class SystemBlocks(Record):
    task_context: str
    skill_catalog: str
    reattached_skills: tuple[str, ...]
    tool_notice: str

    def texts(self) -> list[str]:
        """The non-empty blocks in their fixed order."""
        blocks = [self.task_context, self.skill_catalog, *self.reattached_skills, self.tool_notice]
        return [block for block in blocks if block]


def system_blocks(
    resolved_context: str,
    *,
    depth: int,
    label: str,
    skills: Sequence[Skill],
    reattached_skills: Sequence[str],
    tools_offered: bool,
) -> SystemBlocks:
    return SystemBlocks(
        task_context=task_context_block(resolved_context, depth=depth, label=label),
        skill_catalog=skill_catalog(skills),
        reattached_skills=tuple(block for block in reattached_skills if block.strip()),
        tool_notice=TOOL_NOTICE if tools_offered else "",
    )
