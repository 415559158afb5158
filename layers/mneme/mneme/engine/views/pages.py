"""Pages of long GET responses, under Lambda's response size limit — the one place it is enforced.

A synchronous Lambda response is at most 6 MB, and the HTTP body travels inside it as a JSON *string*: each
``"`` and ``\\`` of the body is escaped once more. A page therefore counts each entry at its size in the
Lambda response (:func:`response_bytes`) and stops before the entries would exceed ``MAX_RESPONSE_BYTES``,
or at ``limit`` entries. Entries are ``(seq, value)`` in ``seq`` order, read lazily; the cursor of a page is
the ``seq`` of its last entry (the next page starts after it), and ``None`` once nothing follows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mneme.errors import InvalidInput, PayloadTooLarge
from mneme.spec_limits import MAX_RESPONSE_BYTES

#: a page's own keys and the response envelope (status, headers) around its entries
ENVELOPE_BYTES = 2_000


def response_bytes(value: Any) -> int:
    """Bytes ``value`` takes in the Lambda response: its JSON as the API writes it, escaped as a string."""
    body = json.dumps(value, default=str, separators=(",", ":"))
    return len(json.dumps(body)) - 2


def take_page(
    entries: Iterable[tuple[int, Any]], *, limit: int, reserve: int = 0, what: str = "entry"
) -> tuple[list[Any], str | None]:
    """The first entries that fit ``limit`` and the size budget (less ``reserve`` for the page's other
    fields), and the cursor of the next page. One entry alone over the budget is a 413 naming it."""
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
