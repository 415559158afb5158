"""The DynamoDB wire side of the item table: values, keys, conditions and updates as requests, errors as mneme's."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from botocore.exceptions import BotoCoreError, ClientError

from mneme.adapters.dynamo.items import (
    PK,
    SK,
    AttrEquals,
    Condition,
    Item,
)
from mneme.adapters.dynamo.values import deserialize, serialize
from mneme.errors import Conflict, PayloadTooLarge, StoreUnavailable, Throttled

if TYPE_CHECKING:
    pass


T = TypeVar("T")
THROTTLE_CODES = frozenset({"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"})
BATCH_GET_MAX = 100
BATCH_WRITE_MAX = 25
BATCH_ATTEMPTS = 8


def to_dynamo(value: Any) -> Any:
    """Plain value -> DynamoDB attribute value (floats as Decimal)."""
    return serialize(value)


def from_dynamo(value: Any) -> Any:
    return deserialize(value)


def item_to(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: to_dynamo(v) for k, v in item.items()}


def item_from(raw: Mapping[str, Any]) -> Item:
    return {k: from_dynamo(v) for k, v in raw.items()}


def key_of(pk: str, sk: str) -> dict[str, Any]:
    return {PK: {"S": pk}, SK: {"S": sk}}


def condition_of(condition: Condition) -> dict[str, Any]:
    """The ConditionExpression arguments of a condition (empty for none)."""
    if condition is None:
        return {}
    if condition == "not_exists":
        return {"ConditionExpression": "attribute_not_exists(#pk)", "ExpressionAttributeNames": {"#pk": PK}}
    if condition == "exists":
        return {"ConditionExpression": "attribute_exists(#pk)", "ExpressionAttributeNames": {"#pk": PK}}
    assert isinstance(condition, AttrEquals)
    return {
        "ConditionExpression": "#cond = :cond",
        "ExpressionAttributeNames": {"#cond": condition.name},
        "ExpressionAttributeValues": {":cond": to_dynamo(condition.value)},
    }


def update_request(pk: str, sk: str, values: Item, condition: Condition) -> dict[str, Any]:
    args = condition_of(condition)
    names = dict(args.get("ExpressionAttributeNames", {}))
    attr_values = dict(args.get("ExpressionAttributeValues", {}))
    sets = []
    for i, (name, value) in enumerate(values.items()):
        names[f"#u{i}"] = name
        attr_values[f":u{i}"] = to_dynamo(value)
        sets.append(f"#u{i} = :u{i}")
    args.update(
        Key=key_of(pk, sk),
        UpdateExpression="SET " + ", ".join(sets),
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=attr_values,
    )
    return args


def translate(exc: ClientError) -> Exception:
    """A botocore ClientError as a mneme error."""
    error = exc.response.get("Error", {})
    code, message = error.get("Code", ""), error.get("Message", str(exc))
    if code == "ConditionalCheckFailedException":
        return Conflict("the item changed or exists already (conditional write failed)")
    if code == "TransactionCanceledException":
        reasons = [r.get("Code", "") for r in exc.response.get("CancellationReasons", [])]
        if any(r in ("ConditionalCheckFailed", "TransactionConflict") for r in reasons) or (
            not reasons and "ConditionalCheckFailed" in message
        ):
            return Conflict("a conditional write of the transaction failed")
        if any(r in ("ThrottlingError", "ProvisionedThroughputExceeded") for r in reasons):
            return Throttled("DynamoDB throttled the transaction")
    if code in THROTTLE_CODES:
        return Throttled(f"DynamoDB throttled the request ({code})")
    if code == "ValidationException" and "size" in message.lower():
        return PayloadTooLarge(f"item too large for DynamoDB: {message}")
    return StoreUnavailable(f"DynamoDB request failed ({code or 'error'}): {message}")


@contextmanager
def translated() -> Iterator[None]:
    try:
        yield
    except ClientError as exc:
        raise translate(exc) from exc
    except BotoCoreError as exc:
        raise StoreUnavailable(f"DynamoDB is unreachable: {exc}") from exc


def chunks(values: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]
