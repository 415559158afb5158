"""Plain values <-> DynamoDB attribute values, without importing boto3.

The same wire format as boto3's ``TypeSerializer`` / ``TypeDeserializer`` (pinned against them in
tests/functional/adapters/test_dynamo_values.py), for the values mneme stores: ``None``, ``bool``, numbers
(``int``, ``Decimal``; a ``float`` is sent as the ``Decimal`` of its shortest repr), ``str``, ``bytes``, lists,
mappings, and sets of strings, numbers or bytes. Numbers come back as ``int`` when they have no fraction
digits, else ``float``; sets come back as lists. Importing boto3 (and through it s3transfer) cost ~260 ms of
a Python 3.13 cold start (docs/performance.md); botocore alone is what the clients need.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from decimal import Clamped, Context, Decimal, Inexact, Overflow, Rounded, Underflow
from typing import Any

# DynamoDB numbers: up to 38 significant digits, exponents -130..125; never round silently (as boto3)
_CONTEXT = Context(Emin=-128, Emax=126, prec=38, traps=[Clamped, Overflow, Inexact, Rounded, Underflow])


def _number(value: int | float | Decimal) -> str:
    if isinstance(value, float):
        value = Decimal(repr(value))
    return str(_CONTEXT.create_decimal(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def serialize(value: Any) -> dict[str, Any]:  # noqa: PLR0911 - one return per attribute type
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if _is_number(value):
        return {"N": _number(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bytes | bytearray):
        return {"B": bytes(value)}
    if isinstance(value, Set):
        if value and all(isinstance(v, str) for v in value):
            return {"SS": list(value)}
        if value and all(_is_number(v) for v in value):
            return {"NS": [_number(v) for v in value]}
        if value and all(isinstance(v, bytes | bytearray) for v in value):
            return {"BS": [bytes(v) for v in value]}
        raise TypeError(f"a set must hold only strings, only numbers or only bytes, and not be empty: {value!r}")
    if isinstance(value, Mapping):
        return {"M": {str(k): serialize(v) for k, v in value.items()}}
    if isinstance(value, list | tuple):
        return {"L": [serialize(v) for v in value]}
    raise TypeError(f"unsupported type for DynamoDB: {type(value).__name__}")


def _plain_number(text: str) -> int | float:
    number = Decimal(text)
    exponent = number.as_tuple().exponent
    return int(number) if isinstance(exponent, int) and exponent >= 0 else float(number)


def deserialize(value: Mapping[str, Any]) -> Any:  # noqa: PLR0911 - one return per attribute type
    if len(value) != 1:
        raise TypeError(f"a DynamoDB attribute value has exactly one type: {value!r}")
    ((kind, data),) = value.items()
    if kind == "NULL":
        return None
    if kind in ("S", "BOOL", "B"):
        return data
    if kind == "N":
        return _plain_number(data)
    if kind in ("SS", "BS"):
        return list(data)  # sets come back as lists (JSON-shaped values)
    if kind == "NS":
        return [_plain_number(v) for v in data]
    if kind == "L":
        return [deserialize(v) for v in data]
    if kind == "M":
        return {k: deserialize(v) for k, v in data.items()}
    raise TypeError(f"unknown DynamoDB attribute type {kind!r}")
