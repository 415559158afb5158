"""Record classes: what ``@dataclass(frozen=True)`` gives, without generating code at import.

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and frozen
``__setattr__`` as source text and compiles it with ``exec`` when the class is defined: 0.8 ms per class on
CPython 3.13, 44 ms for the 54 record classes a Lambda cold start defines (docs/performance.md §1.1; attrs
costs the same, msgspec's import alone 23 ms). A :class:`Record` subclass gets the same behaviour from
methods shared by every record, so defining one costs a few microseconds. Type checkers see it as a
dataclass (:func:`typing.dataclass_transform`), including its synthesized ``__init__``.

* ``class Point(Record)`` is frozen: assigning or deleting an attribute raises
  :class:`dataclasses.FrozenInstanceError`; instances hash by their field values.
* ``class Session(Record, frozen=False)`` is mutable and unhashable; ``kw_only=True`` makes every field of
  the class keyword-only; ``eq=False`` compares and hashes its instances by identity. A frozen record
  cannot extend a mutable one, nor the other way round.
* Fields are the class's annotations (``ClassVar`` ones excluded) after its bases' fields, in order; a
  default is the class attribute, or :func:`field` for a factory, keyword-only or repr-less field.
* Two records are equal when they are of the same class and their field values are equal.
* :func:`replace` and :func:`asdict` are ``dataclasses.replace`` and ``dataclasses.asdict`` for records.
"""

from __future__ import annotations

import copy
import inspect
import reprlib
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from typing import Any, ClassVar, TypeVar, dataclass_transform

R = TypeVar("R", bound="Record")

_MISSING: Any = object()


class _Field:
    __slots__ = ("default", "default_factory", "kw_only", "repr")

    def __init__(self, default: Any, default_factory: Any, kw_only: bool | None, repr: bool) -> None:
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("a field takes a default or a default_factory, not both")
        self.default, self.default_factory, self.kw_only, self.repr = default, default_factory, kw_only, repr

    @property
    def required(self) -> bool:
        return self.default is _MISSING and self.default_factory is _MISSING


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] = _MISSING,
    kw_only: bool | None = None,
    repr: bool = True,
) -> Any:
    """A field's default (``default``, or ``default_factory`` called per instance) and options."""
    return _Field(default, default_factory, kw_only, repr)


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _fields_of(cls: type[Record], kw_only: bool) -> dict[str, _Field]:
    """The bases' fields, then the class's own annotations (checked as ``dataclasses`` checks them)."""
    fields = dict(cls.__record_fields__)
    for name, annotation in inspect.get_annotations(cls).items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, list | dict | set):
            raise ValueError(f"{cls.__qualname__}.{name}: a mutable default is shared; use default_factory")
        spec = value if isinstance(value, _Field) else _Field(value, _MISSING, None, True)
        if spec.kw_only is None:
            spec.kw_only = kw_only
        if isinstance(value, _Field):  # a plain default stays a class attribute, as with dataclasses
            delattr(cls, name)
        fields.pop(name, None)
        fields[name] = spec
    seen_default = ""
    for name, spec in fields.items():
        if spec.kw_only:
            continue
        if not spec.required:
            seen_default = name
        elif seen_default:
            raise TypeError(f"{cls.__qualname__}: field {name!r} without a default follows {seen_default!r}")
    return fields


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Record:
    """The base of mneme's record classes (module docstring)."""

    __slots__ = ()
    __record_fields__: ClassVar[dict[str, _Field]] = {}
    __record_positional__: ClassVar[tuple[str, ...]] = ()
    __record_defaults__: ClassVar[tuple[tuple[str, Any, Any], ...]] = ()  # (name, default, default_factory)
    __record_frozen__: ClassVar[bool | None] = None

    def __init_subclass__(cls, *, frozen: bool = True, kw_only: bool = False, eq: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        inherited = getattr(cls, "__record_frozen__", None)
        if inherited is not None and inherited != frozen:
            raise TypeError(
                f"{cls.__qualname__}: a {'frozen' if frozen else 'mutable'} record cannot extend a "
                f"{'frozen' if inherited else 'mutable'} one"
            )
        fields = _fields_of(cls, kw_only)
        positional = tuple(name for name, spec in fields.items() if not spec.kw_only)
        cls.__record_fields__, cls.__record_positional__, cls.__record_frozen__ = fields, positional, frozen
        cls.__record_defaults__ = tuple(
            (name, spec.default, spec.default_factory) for name, spec in fields.items() if not spec.required
        )
        if frozen:
            cls.__setattr__ = Record._frozen_setattr  # type: ignore[method-assign,assignment]
            cls.__delattr__ = Record._frozen_delattr  # type: ignore[method-assign,assignment]
        if not eq:  # compared and hashed by identity
            cls.__eq__ = object.__eq__  # type: ignore[method-assign]
            cls.__hash__ = object.__hash__  # type: ignore[method-assign]
        elif not frozen:  # mutable and compared by value: unhashable, as a dataclass is
            cls.__hash__ = None  # type: ignore[method-assign,assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        positional, fields = cls.__record_positional__, cls.__record_fields__
        if len(args) > len(positional):
            raise TypeError(
                f"{cls.__qualname__}() takes {len(positional)} positional arguments but {len(args)} were given"
            )
        values = dict(zip(positional, args, strict=False))
        if kwargs:
            for name in kwargs:
                if name not in fields:
                    raise TypeError(f"{cls.__qualname__}() got an unexpected keyword argument {name!r}")
                if name in values:
                    raise TypeError(f"{cls.__qualname__}() got multiple values for argument {name!r}")
            values.update(kwargs)
        if len(values) < len(fields):
            for name, default, factory in cls.__record_defaults__:
                if name not in values:
                    values[name] = factory() if default is _MISSING else default
            if len(values) < len(fields):
                missing = next(name for name in fields if name not in values)
                raise TypeError(f"{cls.__qualname__}() missing required argument: {missing!r}")
        self.__dict__.update(values)

    def _values(self) -> tuple[Any, ...]:
        state = self.__dict__
        return tuple(state[name] for name in type(self).__record_fields__)

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        state, fields = self.__dict__, type(self).__record_fields__
        shown = ", ".join(f"{name}={state[name]!r}" for name, spec in fields.items() if spec.repr)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def _frozen_setattr(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def _frozen_delattr(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with ``changes`` (``dataclasses.replace``)."""
    values = {name: record.__dict__[name] for name in type(record).__record_fields__}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(record).__qualname__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{**values, **changes})


def asdict(record: Record) -> dict[str, Any]:
    """The record's fields as a dict, records, lists, tuples and dicts inside it converted too
    (``dataclasses.asdict``: other values are deep-copied)."""
    return {name: _plain(record.__dict__[name]) for name in type(record).__record_fields__}


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return asdict(value)
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return type(value)(_plain(item) for item in value)
    if isinstance(value, dict):
        return type(value)((_plain(key), _plain(item)) for key, item in value.items())
    return copy.deepcopy(value)
