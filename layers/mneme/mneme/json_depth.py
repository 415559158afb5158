"""How deeply JSON from outside may nest (issue 12.3): HTTP bodies, tool arguments, event details and the
offline model's ``/tool`` directives.

Python's ``json`` module, pydantic and Powertools recurse once per nesting level, so a 2 KB body nested
~1,000 levels deep raises ``RecursionError`` (a 500) and a few hundred levels make a stored chat message
unreadable. Nothing mneme accepts needs more than a few levels; :data:`MAX_JSON_DEPTH` is far above any
legitimate document and far below Python's recursion limit. Both checks here run without recursion: one
over the raw text (before any parser sees it), one over an already parsed value.
"""

from __future__ import annotations

import re
from typing import Any, Final

MAX_JSON_DEPTH: Final = 64
#: the longest number literal accepted: Python refuses to parse integers of more than 4,300 digits (a
#: ValueError no JSON error handler expects), and no value mneme reads needs more than a few dozen
MAX_NUMBER_CHARS: Final = 1000

# a whole string literal (escapes included, an unterminated one runs to the end), one bracket, or a run of
# digits (a number's, outside any string)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]|[0-9]+', re.DOTALL)


def text_problem(text: str, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Why the JSON text must not reach a parser (None when it may): it opens more than ``limit`` arrays /
    objects inside each other, or holds a number of more than :data:`MAX_NUMBER_CHARS` digits. Brackets
    and digits inside strings do not count. Invalid JSON is scanned the same way (the parser refuses it)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return too_deep_message("it", limit)
        elif token in ("]", "}"):
            depth = max(depth - 1, 0)
        elif token[0] != '"' and len(token) > MAX_NUMBER_CHARS:
            return f"it holds a number of more than {MAX_NUMBER_CHARS} digits"
    return None


def text_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Is the JSON text nested more than ``limit`` levels deep, or unfit for a parser (:func:`text_problem`)?"""
    return text_problem(text, limit) is not None


def value_depth_exceeds(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Does a parsed JSON value (dicts and lists) nest more than ``limit`` containers deep?"""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def too_deep_message(what: str, limit: int = MAX_JSON_DEPTH) -> str:
    return f"{what} is nested more than {limit} levels deep"
