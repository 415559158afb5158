"""The DynamoDB backend of :class:`~mneme.adapters.dynamo.items.ItemTable` (boto3 low-level client, injected).

* Values go through :mod:`mneme.adapters.dynamo.values` (boto3's wire format without importing boto3);
  floats are sent as ``Decimal``, numbers come back as ``int`` without fraction digits, else ``float``.
* Reads of the base table are strongly consistent (runs and chats are read-modify-written).
* Errors: a failed condition (also inside a transaction) -> ``Conflict``; throttling that survived
  botocore's own retries -> ``Throttled``; a too-large item -> ``PayloadTooLarge``; anything else
  (missing table, network, access) -> ``StoreUnavailable``.
* ``BatchGetItem`` / ``BatchWriteItem`` leftovers (``UnprocessedKeys`` / ``UnprocessedItems``) are retried
  with a short exponential back-off, then reported as ``Throttled``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mneme.adapters.dynamo.items import (
    PK,
    SK,
    Condition,
    Delete,
    Item,
    Key,
    Page,
    Put,
    TableSchema,
    WriteOp,
    check_transaction,
)
from mneme.errors import Conflict, Throttled
from mneme.observability import traced

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
from mneme.adapters.dynamo.wire import (
    BATCH_ATTEMPTS,
    BATCH_GET_MAX,
    BATCH_WRITE_MAX,
    chunks,
    condition_of,
    item_from,
    item_to,
    key_of,
    to_dynamo,
    translated,
    update_request,
)


class DynamoItemTable:
    """One DynamoDB table behind the ItemTable protocol. ``client`` is a low-level DynamoDB client."""

    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        schema: TableSchema,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = client
        self._name = table_name
        self._schema = schema
        self._sleep = sleep

    @property
    def schema(self) -> TableSchema:
        return self._schema

    @traced("dynamodb.get")
    def get(self, pk: str, sk: str) -> Item | None:
        with translated():
            raw = self._client.get_item(TableName=self._name, Key=key_of(pk, sk), ConsistentRead=True)
        return item_from(raw["Item"]) if "Item" in raw else None

    @traced("dynamodb.batch_get")
    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        unique = list(dict.fromkeys(keys))  # BatchGetItem rejects duplicate keys
        items: list[Item] = []
        for chunk in chunks(unique, BATCH_GET_MAX):
            keys_of = {"Keys": [key_of(pk, sk) for pk, sk in chunk], "ConsistentRead": True}
            for raw in self._until_processed("batch_get_item", {self._name: keys_of}, "UnprocessedKeys"):
                items.extend(item_from(r) for r in raw.get("Responses", {}).get(self._name, []))
        return items

    def _until_processed(self, operation: str, request: dict[str, Any], leftover: str) -> Iterator[Any]:
        """Send a batch request, then its unprocessed leftovers with back-off; Throttled when they stay."""
        send = getattr(self._client, operation)
        for attempt in range(BATCH_ATTEMPTS):
            with translated():
                raw = send(RequestItems=request)
            yield raw
            request = dict(raw.get(leftover) or {})
            if not request:
                return
            self._sleep(min(0.05 * 2**attempt, 1.0))
        raise Throttled(f"DynamoDB left part of a {operation} request unprocessed")

    @traced("dynamodb.put")
    def put(self, item: Item, *, condition: Condition = None) -> None:
        with translated():
            self._client.put_item(TableName=self._name, Item=item_to(item), **condition_of(condition))

    def update(self, pk: str, sk: str, values: Item, *, condition: Condition = None) -> None:
        with translated():
            self._client.update_item(TableName=self._name, **update_request(pk, sk, values, condition))

    @traced("dynamodb.increment")
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
        names: dict[str, str] = {}
        attr_values: dict[str, Any] = {}
        adds, sets, conditions = [], [], []
        if must_exist:
            names["#pk"] = PK
            conditions.append("attribute_exists(#pk)")
        for i, (name, delta) in enumerate(deltas.items()):
            names[f"#a{i}"], attr_values[f":a{i}"] = name, to_dynamo(delta)
            adds.append(f"#a{i} :a{i}")
            if limits and name in limits:
                if delta > limits[name]:
                    raise Conflict(f"{name} would exceed its limit {limits[name]} (conditional increment failed)")
                attr_values[f":l{i}"] = to_dynamo(limits[name] - delta)
                conditions.append(f"(attribute_not_exists(#a{i}) OR #a{i} <= :l{i})")
        for i, (name, value) in enumerate((values or {}).items()):
            names[f"#s{i}"], attr_values[f":s{i}"] = name, to_dynamo(value)
            sets.append(f"#s{i} = :s{i}")
        expression = ("SET " + ", ".join(sets) + " " if sets else "") + ("ADD " + ", ".join(adds) if adds else "")
        args: dict[str, Any] = {
            "TableName": self._name,
            "Key": key_of(pk, sk),
            "UpdateExpression": expression.strip(),
            "ExpressionAttributeNames": names,
            "ReturnValues": "ALL_NEW",
        }
        if attr_values:
            args["ExpressionAttributeValues"] = attr_values
        if conditions:
            args["ConditionExpression"] = " AND ".join(conditions)
        with translated():
            raw = self._client.update_item(**args)
        return item_from(raw.get("Attributes") or {})

    def delete(self, pk: str, sk: str) -> bool:
        with translated():
            raw = self._client.delete_item(TableName=self._name, Key=key_of(pk, sk), ReturnValues="ALL_OLD")
        return bool(raw.get("Attributes"))

    def put_many(self, items: Sequence[Item]) -> None:
        unique = {(item[PK], item[SK]): item for item in items}  # a batch rejects duplicate keys
        self._batch_write([{"PutRequest": {"Item": item_to(item)}} for item in unique.values()])

    def delete_many(self, keys: Sequence[Key]) -> None:
        self._batch_write([{"DeleteRequest": {"Key": key_of(pk, sk)}} for pk, sk in dict.fromkeys(keys)])

    def _batch_write(self, requests: list[dict[str, Any]]) -> None:
        for chunk in chunks(requests, BATCH_WRITE_MAX):
            for _ in self._until_processed("batch_write_item", {self._name: list(chunk)}, "UnprocessedItems"):
                pass

    @traced("dynamodb.transact")
    def transact(self, ops: Sequence[WriteOp]) -> None:
        check_transaction(ops)  # DynamoDB's 100 items and 4 MB, before a request it would refuse
        items: list[dict[str, Any]] = []
        for op in ops:
            if isinstance(op, Put):
                items.append({"Put": {"TableName": self._name, "Item": item_to(op.item), **condition_of(op.condition)}})
            elif isinstance(op, Delete):
                key = {"Key": key_of(op.pk, op.sk), **condition_of(op.condition)}
                items.append({"Delete": {"TableName": self._name, **key}})
            else:
                update = update_request(op.pk, op.sk, op.values, op.condition)
                items.append({"Update": {"TableName": self._name, **update}})
        with translated():
            self._client.transact_write_items(TransactItems=items)  # type: ignore[arg-type]

    @traced("dynamodb.query")
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
        names = {"#pk": ipk}
        values: dict[str, Any] = {":pk": to_dynamo(pk)}
        expression = "#pk = :pk"
        if sk_prefix:
            names["#sk"] = isk
            values[":skp"] = to_dynamo(sk_prefix)
            expression += " AND begins_with(#sk, :skp)"
        elif sk_range:
            names["#sk"] = isk
            values[":lo"], values[":hi"] = to_dynamo(sk_range[0]), to_dynamo(sk_range[1])
            expression += " AND #sk BETWEEN :lo AND :hi"
        args: dict[str, Any] = {"TableName": self._name, "ScanIndexForward": forward}
        if index is None:
            args["ConsistentRead"] = True
        else:
            args["IndexName"] = index
        if filters:
            terms = []
            for i, (name, value) in enumerate(filters.items()):
                names[f"#f{i}"] = name
                values[f":f{i}"] = to_dynamo(value)
                terms.append(f"#f{i} = :f{i}")
            args["FilterExpression"] = " AND ".join(terms)
        if limit is not None:
            args["Limit"] = limit
        if start_key is not None:
            args["ExclusiveStartKey"] = item_to(start_key)
        args.update(
            KeyConditionExpression=expression,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        with translated():
            raw = self._client.query(**args)
        last = raw.get("LastEvaluatedKey")
        return Page(
            [item_from(r) for r in raw.get("Items", [])],
            {k: str(v) for k, v in item_from(last).items()} if last else None,
        )
