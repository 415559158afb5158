"""The volatile suffix of the current user message: memory hits, then the date and time (SPEC §3).

It sits after the user's own text, in the part of the request that is never cached, because it changes
with every request (hits depend on the query, the time changes every minute). The "Stored on" day of
an entry is given in the user's timezone, like the date line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme.context.dates import iso_day

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.models import MemoryHit

MEMORY_HEADER = "RELEVANT CONTEXT FROM LONG-TERM MEMORY:"
MEMORY_CLOSING = (
    "Use these memory entries only where they are relevant to the current request, and mind their "
    "dates: an older entry may be outdated or superseded by the conversation."
)
_SEPARATOR = "\n\n"


def memory_entry(hit: MemoryHit, timezone: str) -> str:
    """One entry: the ``--- MEMORY ENTRY (...) ---`` line, a newline and the content."""
    stored_on = iso_day(hit.observed_at or hit.created_at, timezone)  # when it was said, if known
    return f"--- MEMORY ENTRY (Stored on {stored_on}, Namespace: {hit.namespace}) ---\n{hit.content}"


def memory_block(hits: Sequence[MemoryHit], *, timezone: str, instructions: Sequence[str] = ()) -> str:
    """The memory context, or ``""`` without hits. Hits keep the given (ranking) order.

    ``instructions`` are optional notes (e.g. a namespace rule's instruction) shown after the entries.
    """
    if not hits:
        return ""
    parts = [MEMORY_HEADER + "\n" + _SEPARATOR.join(memory_entry(hit, timezone) for hit in hits)]
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
