"""A tiny item-table abstraction: the only thing the DynamoDB-shaped stores talk to.

The stores (config, chats, runs, audit) are written once over :class:`ItemTable`; three backends
implement it with the same semantics:

* :class:`mneme.adapters.dynamo.table.DynamoItemTable` — boto3 DynamoDB (AWS, and moto in tests),
* ``mneme_local.sqlite_items.SqliteItemTable`` — one SQLite file (the embedded local twin),
* ``tests.fakes.items.MemoryItemTable`` — a dict (unit tests).

Items are plain dicts of ``str`` / ``int`` / ``float`` / ``bool`` / ``None`` / ``list`` / ``dict`` values.
Every table has the string key attributes ``PK`` (partition) and ``SK`` (sort); a :class:`TableSchema`
names its global secondary indexes and their key attributes. Sort order is the byte order of the UTF-8
key (DynamoDB's order for string keys). A failed condition raises :class:`~mneme.errors.Conflict`;
throttling raises :class:`~mneme.errors.Throttled`; anything else :class:`~mneme.errors.StoreUnavailable`.

This module also holds the backend-neutral helpers the local and in-memory backends share, so the
three cannot drift apart: condition checks, filters, start-key handling and paging.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

from mneme.adapters.dynamo.item_size import check_transaction_bytes
from mneme.errors import Conflict, StoreUnavailable
from mneme.records import Record, field

Item = dict[str, Any]
Key = tuple[str, str]  # (PK, SK)

PK = "PK"
SK = "SK"


class AttrEquals(Record):
    """Condition: the item exists and ``name`` equals ``value`` (optimistic locking, counters)."""

    name: str
    value: str | int


#: ``"not_exists"``: no item with this key; ``"exists"``: an item with this key; or an attribute check.
Condition = Literal["not_exists", "exists"] | AttrEquals | None


class Put(Record):
    item: Item
    condition: Condition = None


class Update(Record):
    """Set top-level attributes of one item (creating it when there is no condition and no item)."""

    pk: str
    sk: str
    values: Item
    condition: Condition = None


class Delete(Record):
    """Remove one item (nothing when it is absent and there is no condition)."""

    pk: str
    sk: str
    condition: Condition = None


WriteOp = Put | Update | Delete


#: DynamoDB's TransactWriteItems takes at most 100 items (a larger one is a ValidationException)
TRANSACTION_ITEMS = 100


def check_transaction(ops: Sequence[WriteOp]) -> None:
    """Refuse, as DynamoDB does, a transaction of more items or more bytes than it takes (every backend calls
    this, so offline code meets the limits it would meet on AWS, which moto does not check)."""
    if len(ops) > TRANSACTION_ITEMS:
        raise StoreUnavailable(
            f"DynamoDB request failed (ValidationException): a transaction takes at most {TRANSACTION_ITEMS} items, "
            f"not {len(ops)}"
        )
    check_transaction_bytes(
        op.item if isinstance(op, Put) else {PK: op.pk, SK: op.sk, **getattr(op, "values", {})} for op in ops
    )


def op_key(op: WriteOp) -> Key:
    """The key of the item a write goes to."""
    return (op.item[PK], op.item[SK]) if isinstance(op, Put) else (op.pk, op.sk)


class TableSchema(Record):
    """Index name -> (partition attribute, sort attribute) of each global secondary index."""

    indexes: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def index_keys(self, index: str | None) -> tuple[str, str]:
        if index is None:
            return (PK, SK)
        try:
            return self.indexes[index]
        except KeyError:
            raise ValueError(f"unknown index {index!r}") from None


#: the main table (config, chats, runs) and the audit table, as template.yaml declares them.
MAIN_SCHEMA = TableSchema({"GSI1": ("GSI1PK", "GSI1SK"), "GSI2": ("GSI2PK", "GSI2SK")})
AUDIT_SCHEMA = TableSchema({"ByRootRun": ("root_run_id", SK)})


class Page(Record):
    items: list[Item]
    last_key: dict[str, str] | None  # pass as ``start_key`` to continue; None = no more items


class ItemTable(Protocol):
    @property
    def schema(self) -> TableSchema: ...

    def get(self, pk: str, sk: str) -> Item | None:
        """One item (strongly consistent), or None."""
        ...

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        """The items that exist among ``keys`` (any order; duplicates allowed), in as few round trips
        as the backend allows (DynamoDB: one BatchGetItem per 100 keys)."""
        ...

    def put(self, item: Item, *, condition: Condition = None) -> None: ...

    def update(self, pk: str, sk: str, values: Item, *, condition: Condition = None) -> None: ...

    def delete(self, pk: str, sk: str) -> bool:
        """Remove one item; True when it existed."""
        ...

    def put_many(self, items: Sequence[Item]) -> None:
        """Unconditional puts (a retry overwrites with the same content)."""
        ...

    def delete_many(self, keys: Sequence[Key]) -> None: ...

    def transact(self, ops: Sequence[WriteOp]) -> None:
        """All or nothing: every condition holds and every write is applied, or Conflict and none is."""
        ...

    def increment(
        self,
        pk: str,
        sk: str,
        deltas: Mapping[str, int],
        *,
        limits: Mapping[str, int] | None = None,
        values: Item | None = None,
        must_exist: bool = False,
    ) -> Item:
        """Atomically add ``deltas`` to numeric attributes (a missing one counts as 0) and set ``values``;
        the item as written. Every attribute named in ``limits`` must stay at or below its limit after the
        addition, and with ``must_exist`` the item must exist: otherwise Conflict, and nothing changes
        (DynamoDB: one UpdateItem with ``ADD`` and a condition, so concurrent callers never overshoot)."""
        ...

    def query(
        self,
        pk: str,
        *,
        sk_prefix: str | None = None,
        index: str | None = None,
        forward: bool = True,
        limit: int | None = None,
        start_key: Mapping[str, str] | None = None,
        filters: Mapping[str, str | int] | None = None,
        sk_range: tuple[str, str] | None = None,
    ) -> Page:
        """One page of the items whose (index) partition key is ``pk``, in sort-key order. ``filters``
        are attribute equalities applied after reading (they never widen the page; with filters a page
        may hold fewer than ``limit`` items while ``last_key`` says there is more). ``sk_range`` keeps
        the sort keys between its two bounds, both included (DynamoDB's ``BETWEEN``)."""
        ...


def query_all(
    table: ItemTable,
    pk: str,
    *,
    sk_prefix: str | None = None,
    index: str | None = None,
    forward: bool = True,
) -> list[Item]:
    """Every item of a query, following ``last_key`` across pages."""
    items: list[Item] = []
    start: dict[str, str] | None = None
    while True:
        page = table.query(pk, sk_prefix=sk_prefix, index=index, forward=forward, start_key=start)
        items.extend(page.items)
        if page.last_key is None:
            return items
        start = page.last_key


# ----------------------------------------------------------------------------------- shared semantics
def condition_holds(existing: Item | None, condition: Condition) -> bool:
    if condition is None:
        return True
    if condition == "not_exists":
        return existing is None
    if condition == "exists":
        return existing is not None
    return existing is not None and existing.get(condition.name) == condition.value


def incremented(
    existing: Item | None,
    pk: str,
    sk: str,
    deltas: Mapping[str, int],
    limits: Mapping[str, int] | None,
    values: Item | None,
    must_exist: bool,
) -> Item:
    """The item after :meth:`ItemTable.increment` (the local backends' shared semantics); Conflict when a
    limit or ``must_exist`` does not hold."""
    if must_exist and existing is None:
        raise Conflict("the item does not exist (conditional increment failed)")
    item: Item = dict(existing or {PK: pk, SK: sk})
    for name, delta in deltas.items():
        total = int(item.get(name) or 0) + delta
        if limits and name in limits and total > limits[name]:
            raise Conflict(f"{name} would exceed its limit {limits[name]} (conditional increment failed)")
        item[name] = total
    item.update(values or {})
    return item


def matches(item: Item, filters: Mapping[str, str | int] | None) -> bool:
    return not filters or all(item.get(name) == value for name, value in filters.items())


def key_of(item: Item, schema: TableSchema, index: str | None) -> dict[str, str]:
    """The ``last_key`` of an item as DynamoDB reports it: base keys plus the index keys."""
    key = {PK: item[PK], SK: item[SK]}
    if index is not None:
        ipk, isk = schema.index_keys(index)
        key[ipk] = item[ipk]
        key[isk] = item[isk]
    return key


def order_key(item: Mapping[str, Any], schema: TableSchema, index: str | None) -> tuple[bytes, ...]:
    """Total order of a query: index sort key, then the base keys (ties on an index are possible)."""
    if index is None:
        return (item[SK].encode(),)
    isk = schema.index_keys(index)[1]
    return (str(item[isk]).encode(), item[PK].encode(), item[SK].encode())


def in_range(sort_key: str, sk_range: tuple[str, str] | None) -> bool:
    """Whether a sort key lies in ``sk_range`` (both bounds included), as a key condition would keep it."""
    return sk_range is None or sk_range[0].encode() <= sort_key.encode() <= sk_range[1].encode()


def prefix_upper(prefix: str) -> str:
    """The smallest string greater than every string starting with ``prefix`` (code-point order)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def paginate(
    ordered: Iterable[Item],
    schema: TableSchema,
    *,
    index: str | None,
    limit: int | None,
    filters: Mapping[str, str | int] | None,
) -> Page:
    """Apply DynamoDB's page semantics to items already in query order and past the start key:
    ``limit`` counts evaluated items (before the filter), ``last_key`` is the last evaluated item."""
    items: list[Item] = []
    for evaluated, item in enumerate(ordered, start=1):
        if matches(item, filters):
            items.append(item)
        if limit is not None and evaluated >= limit:
            return Page(items, key_of(item, schema, index))
    return Page(items, None)


def after_start(
    item: Mapping[str, Any],
    schema: TableSchema,
    index: str | None,
    start_key: Mapping[str, str] | None,
    forward: bool,
) -> bool:
    """Whether ``item`` comes strictly after ``start_key`` in the query direction."""
    if start_key is None:
        return True
    mine, theirs = order_key(item, schema, index), order_key(start_key, schema, index)
    return mine > theirs if forward else mine < theirs
