"""Who says a line of a transcript (issue 30): the leading ``Speaker:`` of a memory's content, in the forms
transcripts are written in.

``Kate: …`` is the plain form. Exports and benchmark harnesses often put the time first or beside the name; each
of these is the line of ``Kate`` saying ``…``:

* ``[8 May 2023] Kate: …``, ``(10:32) Kate: …``, ``2023-05-08 13:56 Kate: …``,
  ``1:56 pm on 8 May, 2023 - Kate: …`` — a time or date first (bracketed, or starting with a digit);
* ``Kate (10:32): …``;
* ``user: …`` / ``assistant: …`` — the roles of a chat export, lower-case.

Before, only the plain form was read: with the session's date in front of each line, LoCoMo's recall@10 fell
from 0.748 to 0.666 and auto-inject from 0.741 to 0.555 (the lines were taken for notes: no conversation
window, no speaker). A name is one to three capitalised words (``Dr. Ana Lima``); what is before it is the
line's *stamp*, which counts as content (a date is what the line says about when), not as who.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

_NAME = r"[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}|(?i:user|assistant|human|ai|bot|system)"
_STAMP = r"\[[^\]\n]{1,60}\]|\([^)\n]{1,60}\)|\d[\w:/.,+ -]{0,40}?"
_LINE = re.compile(
    rf"^\s*(?:(?P<stamp>{_STAMP})(?:\s*[-–—|,]\s*|\s+))?"  # a time or date first, then a space or a dash
    rf"(?P<name>{_NAME})"
    r"(?:\s*\((?P<after>[^)\n]{1,40})\))?"  # "Kate (10:32):"
    r":\s"
)
#: what makes a stamp a time or a date: a clock, a numeric date, a year, a month's or a day's name ("2." of a
#: numbered list, or "(a)", is none: an assistant's "2. Budget: …" is no line of Budget's)
_WHEN = re.compile(
    r"\d:\d|\d[/.-]\d|\b\d{4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)",
    re.I,
)

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
)  # fmt: skip
#: a date's words: "8 May: …" is a date and what follows it, not May speaking
_CALENDAR = frozenset(
    word.casefold() for word in (*MONTHS, "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
)


class Said(NamedTuple):
    """A line's speaker and where its parts are: ``content[:stamp_end]`` is its stamp (may be empty),
    ``content[start:]`` the line from its speaker on, ``content[body:]`` what the speaker says."""

    name: str
    stamp_end: int
    body: int
    start: int = 0


@lru_cache(maxsize=65_536)  # a candidate's content is read by several rules, and again by the next search
def said(text: str) -> Said | None:
    """The speaker of ``text`` (the module doc), or None when it does not start like a line of a transcript."""
    found = _LINE.match(text)
    if found is None:
        return None
    stamp, after = found.group("stamp"), found.group("after")
    if stamp and (not _WHEN.search(stamp) or found.group("name").casefold() in _CALENDAR):
        return None
    if after and not _WHEN.search(after):  # "Budget (optional): …" is a heading
        return None
    return Said(found.group("name"), found.end("stamp") if stamp else 0, found.end(), found.start("name"))


def speaker_name(text: str) -> str:
    """A line's speaker (``"Kate"`` of ``"[8 May 2023] Kate: ..."``), or ``""``."""
    line = said(text)
    return line.name if line else ""


def speaker_prefix(text: str) -> int:
    """Where a line's content starts after its stamp and ``Speaker:`` (0: it has none)."""
    line = said(text)
    return line.body if line else 0


def spoken(text: str) -> str:
    """``text`` without its stamp: what a line's vector is made of (a date says when, not what; with the dates
    embedded, our dataset's recall@10 with the floors, its lines dated, was 0.753, and 0.865 without)."""
    line = said(text)
    return text[line.start :] if line and line.stamp_end else text
