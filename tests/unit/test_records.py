"""mneme.records: what a record class does, pinned against what ``dataclasses`` does for the same class."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any, ClassVar, Generic, TypeVar

import pytest

from mneme.records import Record, asdict, field, replace

T = TypeVar("T")


class Point(Record):
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    limit: ClassVar[int] = 10


class Labelled(Point):
    label: str = "p"


class Secret(Record):
    name: str
    token: str = field(default="", repr=False)


class Box(Record, Generic[T]):
    item: T


class Options(Record, kw_only=True):
    a: int
    b: int = 2


class Counter(Record, frozen=False):
    n: int = 0
    seen: set[str] = field(default_factory=set)


class Nested(Record):
    point: Point
    points: tuple[Point, ...] = ()
    by_name: dict[str, Point] = field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class DataPoint:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


def test_fields_are_the_annotations_in_order_after_the_bases_and_without_class_vars() -> None:
    assert list(Labelled.__record_fields__) == ["x", "y", "tags", "label"]


def test_positional_and_keyword_arguments_fill_the_fields_in_order() -> None:
    point = Point(1, 2, ["a"])
    assert (point.x, point.y, point.tags) == (1, 2, ["a"])
    assert Point(y=3, x=4) == Point(4, 3)


def test_defaults_fill_what_is_not_given_and_a_factory_runs_per_instance() -> None:
    first, second = Point(1), Point(2)
    assert (first.y, first.tags) == (0, [])
    assert first.tags is not second.tags


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing required argument: 'x'"),
        ((1, 2, [], 4), {}, "takes 3 positional arguments but 4 were given"),
        ((1,), {"x": 2}, "multiple values for argument 'x'"),
        ((1,), {"z": 2}, "unexpected keyword argument 'z'"),
    ],
)
def test_a_wrong_call_is_a_type_error_as_with_a_dataclass(
    args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)
    with pytest.raises(TypeError):
        DataPoint(*args, **kwargs)


def test_a_kw_only_record_takes_no_positional_argument() -> None:
    assert Options(a=1) == Options(a=1, b=2)
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        Options(1)  # type: ignore[call-arg]


def test_a_field_without_a_default_after_one_with_a_default_is_refused_at_definition() -> None:
    with pytest.raises(TypeError, match="'b' without a default follows 'a'"):

        class Bad(Record):
            a: int = 0
            b: int  # type: ignore[misc]  # mypy refuses it too


def test_a_mutable_plain_default_is_refused_at_definition() -> None:
    with pytest.raises(ValueError, match="use default_factory"):

        class Bad(Record):
            items: list[int] = []  # noqa: RUF012 - the point of the test


def test_a_field_takes_a_default_or_a_factory_not_both() -> None:
    with pytest.raises(ValueError, match="not both"):
        field(default=1, default_factory=int)


def test_a_frozen_record_refuses_assignment_and_deletion_like_a_frozen_dataclass() -> None:
    point = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x
    assert point.x == 1


def test_a_mutable_record_takes_assignment_and_is_unhashable() -> None:
    counter = Counter()
    counter.n += 1
    assert counter == Counter(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(counter)


class Handle(Record, frozen=False, eq=False):
    name: str


def test_an_eq_false_record_is_compared_and_hashed_by_identity() -> None:
    handle = Handle("a")
    assert handle == [handle][0]
    assert handle != Handle("a")
    assert len({handle, Handle("a")}) == 2


def test_records_are_equal_by_class_and_values_only() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(1, 3)
    assert Point(1) != Labelled(1)  # a subclass with the same values is another record
    assert Point(1) != (1, 0, [])


def test_a_frozen_record_hashes_by_its_values() -> None:
    assert hash(Options(a=1)) == hash(Options(a=1))
    assert len({Options(a=1), Options(a=1), Options(a=2)}) == 2


def test_repr_names_the_class_and_its_shown_fields_like_a_dataclass() -> None:
    assert repr(Point(1, 2, ["a"])) == "Point(x=1, y=2, tags=['a'])"
    assert repr(DataPoint(1, 2, ["a"])) == "DataPoint(x=1, y=2, tags=['a'])"
    assert repr(Secret("n", "hidden")) == "Secret(name='n')"


def test_a_record_inside_itself_repr_without_recursing() -> None:
    counter = Counter()
    counter.seen = counter  # type: ignore[assignment]
    assert repr(counter) == "Counter(n=0, seen=...)"


def test_replace_copies_with_changes_and_refuses_an_unknown_field() -> None:
    point = Point(1, 2, ["a"])
    moved = replace(point, y=5)
    assert (moved, point) == (Point(1, 5, ["a"]), Point(1, 2, ["a"]))
    assert type(replace(Labelled(1), label="q")) is Labelled
    with pytest.raises(TypeError, match="no field 'z'"):
        replace(point, z=1)


def test_asdict_converts_nested_records_and_containers_like_dataclasses_asdict() -> None:
    nested = Nested(Point(1, tags=["t"]), (Point(2),), {"p": Point(3)})
    as_dict = asdict(nested)
    assert as_dict == {
        "point": {"x": 1, "y": 0, "tags": ["t"]},
        "points": ({"x": 2, "y": 0, "tags": []},),
        "by_name": {"p": {"x": 3, "y": 0, "tags": []}},
    }
    assert as_dict["point"]["tags"] is not nested.point.tags  # deep-copied, as dataclasses.asdict does


def test_a_generic_record_takes_its_parameter() -> None:
    box = Box[int](1)
    assert box == Box(1)
    assert box.item == 1


def test_a_frozen_record_cannot_extend_a_mutable_one_nor_the_other_way_round() -> None:
    with pytest.raises(TypeError, match="frozen record cannot extend a mutable"):

        class FrozenCounter(Counter):  # type: ignore[misc]  # mypy refuses it too
            pass

    with pytest.raises(TypeError, match="mutable record cannot extend a frozen"):

        class MutablePoint(Point, frozen=False):  # type: ignore[misc]
            pass


def test_records_copy_and_pickle_to_equal_records() -> None:
    point = Labelled(1, 2, ["a"], "l")
    assert copy.copy(point) == point
    assert copy.deepcopy(point) == point
    assert pickle.loads(pickle.dumps(point)) == point


def test_defining_a_record_generates_and_compiles_no_code(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real_compile, real_exec = compile, exec

    def counting_compile(*args: Any, **kwargs: Any) -> Any:
        compiled.append("compile")
        return real_compile(*args, **kwargs)

    def counting_exec(*args: Any, **kwargs: Any) -> None:
        compiled.append("exec")
        real_exec(*args, **kwargs)

    monkeypatch.setattr("builtins.compile", counting_compile)
    monkeypatch.setattr("builtins.exec", counting_exec)

    class Fresh(Record):
        a: int
        b: str = ""

    assert Fresh(1) == Fresh(1, "")
    assert compiled == []

    @dataclasses.dataclass(frozen=True)
    class FreshData:
        a: int

    assert "exec" in compiled  # the count sees what dataclasses does (one exec per class on 3.13, per method before)
