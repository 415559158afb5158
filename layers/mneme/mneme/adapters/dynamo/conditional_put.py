"""Writes of a configuration item: only if the request's ``If-Match`` / ``If-None-Match`` holds (a lost update
refused, RFC 9110 §13), and with the revision they make, each in one write: no other writer can slip in between
the check and the write, and no save or delete is kept without its revision (nor a revision without it).

The tag checked is the one a GET of the same URL showed: the item the write replaces, else (a user writing
an agent or skill they have none of) the global one they saw, else the default a GET answers (settings never
saved). The put is then conditioned on the replaced item's stored JSON being what was checked (or on there
being none), so a write that lands in between makes it fail with 412 as well.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from pydantic import BaseModel

from mneme.adapters.dynamo.config_keys import first_visible
from mneme.adapters.dynamo.config_revisions import revision_put
from mneme.adapters.dynamo.items import (
    PK,
    SK,
    TRANSACTION_ITEMS,
    AttrEquals,
    Condition,
    Delete,
    Item,
    ItemTable,
    Key,
    Put,
    WriteOp,
)
from mneme.errors import Conflict, PreconditionFailed
from mneme.models.precondition import Precondition, etag_of

_RACED = "the resource was changed by another request while this one {} it; read it again"


def put_checked(
    table: ItemTable,
    item: Item,
    precondition: Precondition | None,
    *,
    read: Callable[[Item], BaseModel],
    shown_instead: Sequence[Key] = (),
    default: BaseModel | None = None,
    revision_at: datetime | None = None,
    revision_by: str | None = None,
) -> None:
    """Put ``item``; with a precondition, only if it holds for what a GET showed (see the module's text).
    ``shown_instead``: the keys read, in order, when the item does not exist yet. ``revision_at``: record the
    save as a revision made then (in the same transaction), by the user ``revision_by``."""
    key = (item[PK], item[SK])
    revision = [revision_put(key, item["data"], "saved", revision_at, by=revision_by)] if revision_at else []
    condition: Condition = None
    if precondition is not None:
        current = table.get(*key)
        shown = current or first_visible(shown_instead, lambda other: table.get(*other))
        tag = etag_of(read(shown)) if shown is not None else etag_of(default) if default is not None else None
        precondition.require(tag)
        condition = AttrEquals("data", current["data"]) if current is not None else "not_exists"
    _write(table, [Put(item, condition), *revision], checked=precondition is not None, doing="wrote")


def delete_checked(
    table: ItemTable,
    keys: Sequence[Key],
    precondition: Precondition | None,
    *,
    read: Callable[[Item], BaseModel],
    along: Sequence[Item] = (),
    revision_at: datetime | None = None,
    revision_by: str | None = None,
) -> bool:
    """Delete the item kept under ``keys`` (its copies in every partition, the first the one written) and the
    items that go with it (``along``: an agent's tasks) — with a precondition, only if it holds for the first copy
    found, whose delete is then conditioned on its stored JSON; False when there is none. One transaction with
    the others and the revisions — the item's, naming the ``task_id`` of each item along, and each of theirs, in
    the item's partition (the first 100 items; the rest, past DynamoDB's limit, right after)."""
    found = next(((key, item) for key in keys if (item := table.get(*key)) is not None), None)
    if found is None:
        return False
    key, item = found
    condition: Condition = None
    if precondition is not None:
        precondition.require(etag_of(read(item)))
        condition = AttrEquals("data", item["data"])
    ops: list[WriteOp] = [Delete(*key, condition=condition)]
    kept = list({str(other[SK]): other for other in along}.values())  # a task in two partitions: one revision
    if revision_at is not None:
        at, by = revision_at, revision_by
        tasks = [str(other.get("task_id") or "") for other in kept]
        ops.append(revision_put(keys[0], item["data"], "deleted", at, by=by, tasks=tasks))
        ops += [revision_put((keys[0][0], other[SK]), other["data"], "deleted", at, by=by) for other in kept]
    ops += [Delete(*other) for other in [*keys, *((o[PK], o[SK]) for o in along)] if other != key]
    _write(table, ops[:TRANSACTION_ITEMS], checked=precondition is not None, doing="deleted")
    for op in ops[TRANSACTION_ITEMS:]:
        if isinstance(op, Put):
            table.put(op.item)
    table.delete_many([(op.pk, op.sk) for op in ops[TRANSACTION_ITEMS:] if isinstance(op, Delete)])
    return True


def _write(table: ItemTable, ops: list[WriteOp], *, checked: bool, doing: str) -> None:
    """One write of ``ops`` (a put alone as a put); a condition that fails is a 412 when the request set one."""
    try:
        if len(ops) == 1 and isinstance(ops[0], Put):
            table.put(ops[0].item, condition=ops[0].condition)
        else:
            table.transact(ops)
    except Conflict:
        if not checked:
            raise
        raise PreconditionFailed(_RACED.format(doing)) from None
