"""The volatile suffix of the current user message: memory hits, then the date and time (SPEC §3).

It sits after the user's own text, in the part of the request that is never cached, because it changes
with every request (hits depend on the query, the time changes every minute). The "Stored on" day of
an entry is given in the user's timezone, like the date line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme.context.dates import iso_day
from mneme.memory.conversation import conversation

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.models import MemoryHit

MEMORY_HEADER = "RELEVANT CONTEXT FROM LONG-TERM MEMORY:"
MEMORY_CLOSING = (
    "Use these memory entries only where they are relevant to the current request, and mind their "
    "dates: an older entry may be outdated or superseded by the conversation."
)
_SEPARATOR = "\n\n"


def stored_on(hit: MemoryHit, timezone: str) -> str:
    """The day an entry is dated by wherever a model reads it (here, and the memory-search tool's ``stored_on``):
    when it was said, if known, else when it was written, in the user's timezone."""
    return iso_day(hit.observed_at or hit.created_at, timezone)


def memory_entries(hits: Sequence[MemoryHit], timezone: str) -> list[str]:
    """The entries in ranking order; consecutive hits of the same day and namespace (turns of one
    conversation, as a conversation window recalls them) share one ``--- MEMORY ENTRY`` line, each content on
    its own line, so the headers stay a small share of the block (issue 30.2). A hit's lines of conversation
    (:mod:`mneme.memory.conversation`) stand around it in the order they were said."""
    groups: list[tuple[tuple[str, str], list[str]]] = []
    for hit in hits:
        key = (stored_on(hit, timezone), hit.namespace)
        said = conversation(hit)  # a chat line with the lines said around it, in their order
        if groups and groups[-1][0] == key:
            groups[-1][1].extend(said)
        else:
            groups.append((key, said))
    return [
        f"--- MEMORY ENTRY (Stored on {day}, Namespace: {namespace}) ---\n" + "\n".join(contents)
        for (day, namespace), contents in groups
    ]


def memory_block(hits: Sequence[MemoryHit], *, timezone: str, instructions: Sequence[str] = ()) -> str:
    """The memory context, or ``""`` without hits. Hits keep the given (ranking) order.

    ``instructions`` are optional notes (e.g. a namespace rule's instruction) shown after the entries.
    """
    if not hits:
        return ""
    parts = [MEMORY_HEADER + "\n" + _SEPARATOR.join(memory_entries(hits, timezone))]
    notes = [note.strip() for note in dict.fromkeys(instructions) if note.strip()]
    if notes:
        parts.append("\n".join(notes))
    parts.append(MEMORY_CLOSING)
    return _SEPARATOR.join(parts)


def datetime_line(date_text: str, time_text: str) -> str:
    return f"[Context — current date/time: {date_text}, {time_text}]"


def volatile_suffix(
    hits: Sequence[MemoryHit],
    *,
    date_text: str,
    time_text: str,
    timezone: str,
    instructions: Sequence[str] = (),
) -> str:
    """Memory context (only with hits), then the date/time line."""
    memory = memory_block(hits, timezone=timezone, instructions=instructions)
    line = datetime_line(date_text, time_text)
    return f"{memory}{_SEPARATOR}{line}" if memory else line


def with_suffix(user_text: str, suffix: str) -> str:
    """The current user message as sent: the user's text, a blank line, the suffix."""
    return f"{user_text}{_SEPARATOR}{suffix}" if user_text.strip() else suffix
