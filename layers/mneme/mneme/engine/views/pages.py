"""Pages of long GET responses, under Lambda's response size limit — the one place it is enforced.

A synchronous Lambda response is at most 6 MB, and the HTTP body travels inside it as a JSON *string*: each
``"`` and ``\\`` of the body is escaped once more. A page therefore counts each entry at its size in the
Lambda response (:func:`response_bytes`) and stops before the entries would exceed ``MAX_RESPONSE_BYTES``,
or at ``limit`` entries. Entries are ``(position, value)`` in order, read lazily; the cursor of a page is the
position of its last entry (the next page starts after it), and ``None`` once nothing follows. A position is
an entry's ``seq`` (events, messages), its id (:func:`sorted_page`: agents, tasks, skills) or a store's own
token for it (chats).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from mneme.errors import InvalidInput, PayloadTooLarge
from mneme.spec_limits import MAX_RESPONSE_BYTES

#: a page's own keys and the response envelope (status, headers) around its entries
ENVELOPE_BYTES = 2_000

T = TypeVar("T")


def response_bytes(value: Any) -> int:
    """Bytes ``value`` takes in the Lambda response: its JSON as the API writes it, escaped as a string."""
    body = json.dumps(value, default=str, separators=(",", ":"))
    return len(json.dumps(body)) - 2


def take_page(
    entries: Iterable[tuple[int | str, Any]], *, limit: int | None, reserve: int = 0, what: str = "entry"
) -> tuple[list[Any], str | None]:
    """The first entries that fit ``limit`` (``None``: as many as the size budget holds) and the size budget
    (less ``reserve`` for the page's other fields), and the cursor of the next page. One entry alone over the
    budget is a 413 naming it."""
    limit = sys.maxsize if limit is None else limit
    budget = MAX_RESPONSE_BYTES - reserve
    page: list[Any] = []
    used, last = 0, None
    for seq, value in entries:
        cost = response_bytes(value) + 1  # its comma
        if page and (len(page) >= limit or used + cost > budget):
            return page, str(last)
        if cost > budget:
            raise PayloadTooLarge(
                f"{what} {seq} takes {cost} bytes, more than a response may carry ({budget}): "
                "it cannot be read over HTTP"
            )
        page.append(value)
        used, last = used + cost, seq
    return page, None


def start_after(cursor: str | None, after: int | None = None) -> int | None:
    """The ``seq`` a page starts after: the cursor of the previous page (``after`` is its alias)."""
    if cursor is None:
        return after
    if not cursor.isascii() or not cursor.isdigit() or len(cursor) > 12:
        raise InvalidInput("cursor is not valid: pass the cursor of the previous page", field="cursor")
    if after is not None and after != int(cursor):
        raise InvalidInput("cursor and after name different positions: pass one of them", field="after")
    return int(cursor)


def sorted_page(
    items: Iterable[T],
    *,
    key: Callable[[T], str],
    view: Callable[[T], Any],
    limit: int | None,
    cursor: str | None,
    what: str,
) -> tuple[list[Any], str | None]:
    """A page of a listing in ``key`` order (ids, unique): the views of the items whose key follows ``cursor``
    (the last key of the previous page), so an item added or removed meanwhile never shifts another."""
    entries = ((key(item), view(item)) for item in items if cursor is None or key(item) > cursor)
    return take_page(entries, limit=limit, reserve=ENVELOPE_BYTES, what=what)
