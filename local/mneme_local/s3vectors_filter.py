"""The metadata filter grammar of Amazon S3 Vectors, validated and evaluated (for the in-process stand-in).

From the S3 user guide, "Metadata filtering" (docs.aws.amazon.com/AmazonS3/latest/userguide/
s3-vectors-metadata-filtering.html): ``$eq`` / ``$ne`` take a string, number or boolean (``$eq`` against a list
value is true when any element matches); ``$gt`` ``$gte`` ``$lt`` ``$lte`` a number; ``$in`` / ``$nin`` a
non-empty array of primitives; ``$exists`` a boolean; ``$and`` / ``$or`` a non-empty array of filters; a bare
value is ``$eq``. A filter on a non-filterable key is a 400.

Where the page says nothing the stand-in is strict rather than lenient, so an adapter that passes here does not
rely on an undocumented leniency: an object with several keys (use ``$and``) or several operators is refused;
a missing key fails every comparison except ``$ne``, ``$nin`` and ``$exists: false`` (MongoDB's reading, which
the grammar borrows); ``$in`` / ``$nin`` against a list value look at its elements like ``$eq`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

_MISSING = object()
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


class FilterError(ValueError):
    """The filter is not of the grammar (a ValidationException)."""


def _primitive(value: Any) -> bool:
    return isinstance(value, str | bool | int | float) and value is not None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(stored: Any, wanted: Any) -> bool:
    """Equality without Python's ``True == 1``."""
    if stored != wanted:
        return False
    return type(stored) is type(wanted) or (_number(stored) and _number(wanted))


def _elements(stored: Any) -> list[Any]:
    return list(stored) if isinstance(stored, list) else [stored]


def _check_operand(op: str, operand: Any) -> None:
    if op in ("$eq", "$ne") and not _primitive(operand):
        raise FilterError(f"{op} takes a string, number or boolean")
    if op in _COMPARE and not _number(operand):
        raise FilterError(f"{op} takes a number")
    if op in ("$in", "$nin") and not (isinstance(operand, list) and operand and all(map(_primitive, operand))):
        raise FilterError(f"{op} takes a non-empty array of strings, numbers or booleans")
    if op == "$exists" and not isinstance(operand, bool):
        raise FilterError("$exists takes a boolean")
    if op not in ("$eq", "$ne", "$in", "$nin", "$exists", *_COMPARE):
        raise FilterError(f"unknown operator {op}")


def validate(flt: Any, non_filterable: Collection[str]) -> int:
    """Raise FilterError unless ``flt`` is a filter of the grammar; answers its number of constraints."""
    if not isinstance(flt, Mapping) or len(flt) != 1:
        raise FilterError("a filter is an object with exactly one key (combine conditions with $and / $or)")
    [(name, value)] = flt.items()
    if name in ("$and", "$or"):
        if not isinstance(value, list) or not value:
            raise FilterError(f"{name} takes a non-empty array of filters")
        return sum(validate(part, non_filterable) for part in value)
    if name.startswith("$"):
        raise FilterError(f"unknown operator {name} at the top of a filter")
    if name in non_filterable:
        raise FilterError(f"metadata key {name!r} is not filterable")
    if isinstance(value, Mapping):
        if len(value) != 1:
            raise FilterError(f"the condition on {name!r} must have exactly one operator")
        [(op, operand)] = value.items()
        _check_operand(op, operand)
    elif not _primitive(value):
        raise FilterError(f"the value compared with {name!r} must be a string, number or boolean")
    return 1


def matches(flt: Mapping[str, Any], metadata: Mapping[str, Any]) -> bool:
    """Does a vector's metadata satisfy a (validated) filter?"""
    [(name, value)] = flt.items()
    if name == "$and":
        return all(matches(part, metadata) for part in value)
    if name == "$or":
        return any(matches(part, metadata) for part in value)
    op, operand = next(iter(value.items())) if isinstance(value, Mapping) else ("$eq", value)
    stored = metadata.get(name, _MISSING)
    if op == "$exists":
        return (stored is not _MISSING) is operand
    if stored is _MISSING:
        return op in ("$ne", "$nin")
    elements = _elements(stored)
    return _TESTS[op](elements, operand)


def _any_equal(elements: list[Any], operand: Any) -> bool:
    return any(_same(e, operand) for e in elements)


def _any_in(elements: list[Any], operand: Any) -> bool:
    return any(_same(e, o) for e in elements for o in operand)


def _compare(op: str) -> Callable[[list[Any], Any], bool]:
    return lambda elements, operand: any(_number(e) and _COMPARE[op](e, operand) for e in elements)


_TESTS: dict[str, Callable[[list[Any], Any], bool]] = {
    "$eq": _any_equal,
    "$ne": lambda elements, operand: not _any_equal(elements, operand),
    "$in": _any_in,
    "$nin": lambda elements, operand: not _any_in(elements, operand),
    **{op: _compare(op) for op in _COMPARE},
}
