"""Which memories are lines of one conversation (issue 30): what the fusion's conversation window joins and what
auto-inject shows around a recalled chat line.

Two memories are said together when both are lines of a transcript (each says who speaks, ``Kate: …``) or turns
of one chat mneme wrote (the same ``metadata.chat_id``). Notes stored one after the other are not a
conversation: "Maria has two cats." written after "Maria's birthday is on June 3." neither lends it its words
nor smooths its score (before, a question about Maria's pets ranked her birthday first in a memory of ten notes).
"""

from __future__ import annotations

from typing import Any, Protocol

from mneme.memory.speakers import speaker_name


class _Said(Protocol):
    @property
    def content(self) -> str: ...

    @property
    def metadata(self) -> dict[str, Any]: ...


def one_talk(first: _Said, second: _Said) -> bool:
    """Whether ``first`` and ``second`` are lines of one conversation (the module doc)."""
    chat = first.metadata.get("chat_id")
    if chat and chat == second.metadata.get("chat_id"):
        return True
    return bool(speaker_name(first.content)) and bool(speaker_name(second.content))


def is_note(memory: _Said) -> bool:
    """Whether ``memory`` stands alone: neither a line of a transcript nor a turn of a chat mneme wrote. What it
    says is all there is to recall it by: no line around it lends it words."""
    return not memory.metadata.get("chat_id") and not speaker_name(memory.content)
