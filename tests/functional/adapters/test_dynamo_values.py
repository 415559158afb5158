"""mneme's DynamoDB value codec writes exactly what boto3's TypeSerializer writes, and reads it back."""

from __future__ import annotations

from decimal import Decimal

import pytest
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from hypothesis import given
from hypothesis import strategies as st

from mneme.adapters.dynamo.values import deserialize, serialize
from mneme.adapters.dynamo.wire import from_dynamo, to_dynamo

numbers = st.integers(min_value=-(10**37), max_value=10**37) | st.decimals(
    allow_nan=False, allow_infinity=False, places=6, min_value=-(10**20), max_value=10**20
)
scalars = st.none() | st.booleans() | numbers | st.text(max_size=20) | st.binary(max_size=20)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _wire(value: object) -> object:
    """boto3 writes Binary objects and Decimal sets; compare on the wire format botocore sends."""
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    inner = getattr(value, "value", None)  # boto3's Binary wraps the bytes
    return inner if isinstance(inner, bytes) else value


@given(values)
def test_serialize_matches_boto3(value: object) -> None:
    assert serialize(value) == _wire(TypeSerializer().serialize(value))


@given(values)
def test_deserialize_reads_what_boto3_writes(value: object) -> None:
    wire = TypeSerializer().serialize(value)
    expected = TypeDeserializer().deserialize(wire)
    assert deserialize(_wire(wire)) == _plain(expected)  # type: ignore[arg-type]


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    inner = getattr(value, "value", None)
    return bytes(inner) if isinstance(inner, bytes) else value


def test_floats_are_sent_as_their_shortest_decimal_and_sets_by_kind() -> None:
    assert to_dynamo(0.1) == {"N": "0.1"} and from_dynamo({"N": "0.1"}) == 0.1
    assert serialize({"a", "b"})["SS"] in (["a", "b"], ["b", "a"])
    assert sorted(deserialize({"NS": ["2", "1.5"]})) == [1.5, 2]


@pytest.mark.parametrize("bad", [set(), {1, "a"}, object(), Decimal("1e200"), 0.1 + 1e-30j])
def test_values_dynamodb_cannot_hold_are_refused(bad: object) -> None:
    with pytest.raises((TypeError, ArithmeticError)):
        serialize(bad)


def test_importing_the_codec_imports_no_boto3() -> None:
    import subprocess
    import sys
    from pathlib import Path

    layer = Path(__file__).resolve().parents[3] / "layers" / "mneme"
    code = (
        f"import sys; sys.path.insert(0, {str(layer)!r}); import mneme.adapters.dynamo.table;"
        "print('boto3' in sys.modules, 's3transfer' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
