"""An in-memory ``ItemTable`` (a dict) with the same semantics as the DynamoDB and SQLite backends."""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence

from mneme.adapters.dynamo.item_size import check_item_size
from mneme.adapters.dynamo.items import (
    MAIN_SCHEMA,
    PK,
    SK,
    Condition,
    Delete,
    Item,
    Key,
    Page,
    Put,
    TableSchema,
    Update,
    WriteOp,
    after_start,
    check_transaction,
    condition_holds,
    in_range,
    incremented,
    op_key,
    order_key,
    paginate,
)
from mneme.errors import Conflict


class MemoryItemTable:
    def __init__(self, schema: TableSchema = MAIN_SCHEMA) -> None:
        self._schema = schema
        self._items: dict[Key, Item] = {}
        self._lock = threading.RLock()

    @property
    def schema(self) -> TableSchema:
        return self._schema

    def get(self, pk: str, sk: str) -> Item | None:
        with self._lock:
            item = self._items.get((pk, sk))
            return copy.deepcopy(item) if item is not None else None

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        with self._lock:
            return [copy.deepcopy(self._items[key]) for key in dict.fromkeys(keys) if key in self._items]

    def put(self, item: Item, *, condition: Condition = None) -> None:
        self.transact([Put(item, condition)])

    def update(self, pk: str, sk: str, values: Item, *, condition: Condition = None) -> None:
        self.transact([Update(pk, sk, values, condition)])

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
        with self._lock:
            item = incremented(self._items.get((pk, sk)), pk, sk, deltas, limits, copy.deepcopy(values), must_exist)
            self._items[(pk, sk)] = item
            return copy.deepcopy(item)

    def delete(self, pk: str, sk: str) -> bool:
        with self._lock:
            return self._items.pop((pk, sk), None) is not None

    def put_many(self, items: Sequence[Item]) -> None:
        with self._lock:
            for item in items:
                check_item_size(item)
            for item in items:
                self._items[(item[PK], item[SK])] = copy.deepcopy(dict(item))

    def delete_many(self, keys: Sequence[Key]) -> None:
        with self._lock:
            for key in keys:
                self._items.pop(key, None)

    def transact(self, ops: Sequence[WriteOp]) -> None:
        check_transaction(ops)
        with self._lock:
            keys = [op_key(op) for op in ops]
            written: list[Item | None] = []  # each op's item after it (None: deleted)
            for op, key in zip(ops, keys, strict=True):
                current = self._items.get(key)
                if not condition_holds(current, op.condition):
                    raise Conflict("the item changed or exists already (conditional write failed)")
                if isinstance(op, Delete):
                    written.append(None)
                    continue
                item = dict(op.item) if isinstance(op, Put) else {**(current or {PK: op.pk, SK: op.sk}), **op.values}
                check_item_size(item)
                written.append(item)
            for key, after in zip(keys, written, strict=True):
                if after is None:
                    self._items.pop(key, None)
                else:
                    self._items[key] = copy.deepcopy(after)

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
        ipk, isk = self._schema.index_keys(index)
        with self._lock:
            selected = [
                copy.deepcopy(item)
                for item in self._items.values()
                if item.get(ipk) == pk
                and isk in item
                and (not sk_prefix or str(item[isk]).startswith(sk_prefix))
                and in_range(str(item[isk]), sk_range)
                and after_start(item, self._schema, index, start_key, forward)
            ]
        selected.sort(key=lambda item: order_key(item, self._schema, index), reverse=not forward)
        return paginate(selected, self._schema, index=index, limit=limit, filters=filters)
