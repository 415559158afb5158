"""A configuration item written only if the request's ``If-Match`` / ``If-None-Match`` holds (a lost update
refused, RFC 9110 §13), in one conditional write: no other writer can slip in between the check and the put.

The tag checked is the one a GET of the same URL showed: the item the write replaces, else (a user writing
an agent or skill they have none of) the global one they saw, else the default a GET answers (settings never
saved). The put is then conditioned on the replaced item's stored JSON being what was checked (or on there
being none), so a write that lands in between makes it fail with 412 as well.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel

from mneme.adapters.dynamo.items import PK, SK, TRANSACTION_ITEMS, AttrEquals, Delete, Item, ItemTable, Key
from mneme.errors import Conflict, PreconditionFailed
from mneme.models.precondition import Precondition, etag_of


def put_checked(
    table: ItemTable,
    item: Item,
    precondition: Precondition | None,
    *,
    read: Callable[[Item], BaseModel],
    shown_instead: Sequence[Key] = (),
    default: BaseModel | None = None,
) -> None:
    """Put ``item``; with a precondition, only if it holds for what a GET showed (see the module's text).
    ``shown_instead``: the keys read, in order, when the item does not exist yet."""
    if precondition is None:
        table.put(item)
        return
    current = table.get(item[PK], item[SK])
    shown = current or _first(table, shown_instead)
    tag = etag_of(read(shown)) if shown is not None else etag_of(default) if default is not None else None
    if not precondition.holds(tag):
        raise PreconditionFailed(precondition.refusal(tag), details={"etag": tag} if tag else None)
    try:
        table.put(item, condition=AttrEquals("data", current["data"]) if current is not None else "not_exists")
    except Conflict:
        raise PreconditionFailed(
            "the resource was changed by another request while this one was written; read it again"
        ) from None


def delete_checked(
    table: ItemTable,
    keys: Sequence[Key],
    precondition: Precondition,
    *,
    read: Callable[[Item], BaseModel],
    along: Sequence[Key] = (),
) -> bool:
    """Delete the item kept under ``keys`` (its copies in every partition) and the items that go with it
    (``along``: an agent's tasks), only if the precondition holds for the first copy found; False when there is
    none. The delete of that copy is conditioned on its stored JSON, in one transaction with the others (the
    first 100 items; the rest, past DynamoDB's limit, right after)."""
    found = next(((key, item) for key in keys if (item := table.get(*key)) is not None), None)
    if found is None:
        return False
    key, item = found
    tag = etag_of(read(item))
    if not precondition.holds(tag):
        raise PreconditionFailed(precondition.refusal(tag), details={"etag": tag})
    ops = [Delete(*key, condition=AttrEquals("data", item["data"]))]
    ops += [Delete(*other) for other in [*keys, *along] if other != key]
    try:
        table.transact(ops[:TRANSACTION_ITEMS])
    except Conflict:
        raise PreconditionFailed(
            "the resource was changed by another request while this one deleted it; read it again"
        ) from None
    table.delete_many([(op.pk, op.sk) for op in ops[TRANSACTION_ITEMS:]])
    return True


def _first(table: ItemTable, keys: Sequence[Key]) -> Item | None:
    for key in keys:
        found = table.get(*key)
        if found is not None:
            return found
    return None
