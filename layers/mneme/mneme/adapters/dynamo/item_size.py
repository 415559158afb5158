"""DynamoDB's item size limit, which the local and in-memory item tables enforce as DynamoDB does.

An item holds at most 400 KB, counted as the UTF-8 bytes of every attribute name and value (a number about one
byte per two digits, a list or map 3 bytes plus 1 per element, a map's names counted too). DynamoDB refuses a
larger put with a ``ValidationException`` that :mod:`mneme.adapters.dynamo.wire` answers as a 413; the local
stand-in used to store it, so an agent with an 830 KB tool schema saved locally and failed on AWS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mneme.errors import PayloadTooLarge, StoreUnavailable

MAX_ITEM_BYTES = 400 * 1024
#: TransactWriteItems: "the aggregate size of the items in the transaction cannot exceed 4 MB"
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024


def item_bytes(item: Mapping[str, Any]) -> int:
    """The item's size as DynamoDB counts it (close to; never below it for strings, which dominate)."""
    return sum(_utf8(str(name)) + _value_bytes(value) for name, value in item.items())


def _value_bytes(value: Any) -> int:
    if isinstance(value, str):
        return _utf8(value)
    if isinstance(value, Mapping):
        return 3 + sum(_utf8(str(k)) + _value_bytes(v) + 1 for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return 3 + sum(_value_bytes(v) + 1 for v in value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return len(str(abs(value)).replace(".", "")) // 2 + 2
    if isinstance(value, bytes | bytearray):
        return len(value)
    return 1 if value is None or isinstance(value, bool) else _utf8(str(value))


def _utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def check_item_size(item: Mapping[str, Any]) -> None:
    """PayloadTooLarge (413) for an item DynamoDB would refuse, with DynamoDB's reason."""
    size = item_bytes(item)
    if size > MAX_ITEM_BYTES:
        raise PayloadTooLarge(
            "item too large for DynamoDB: Item size has exceeded the maximum allowed size "
            f"({size} > {MAX_ITEM_BYTES} bytes)"
        )


def check_transaction_bytes(items: Iterable[Mapping[str, Any]]) -> None:
    """Refuse, as DynamoDB does, a transaction whose items add up to more than 4 MB (a ValidationException; moto
    and the local tables used to accept it, so a chat turn of large tool results stored offline and failed on AWS)."""
    size = sum(item_bytes(item) for item in items)
    if size > MAX_TRANSACTION_BYTES:
        raise StoreUnavailable(
            "DynamoDB request failed (ValidationException): the aggregate size of the items in a transaction "
            f"cannot exceed 4 MB ({size} > {MAX_TRANSACTION_BYTES} bytes)"
        )
