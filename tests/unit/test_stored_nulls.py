"""The config store writes an item without its null fields (``config_store._item``): that is only the same item
if every field that may be null defaults to null, in the stored models and every model inside them."""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from mneme.models import Agent, Skill, Task, UserSettings


def _models(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[type[BaseModel]]:
    """``model`` and every pydantic model its fields' types name, transitively."""
    if model in seen:
        return seen
    seen.add(model)
    for field in model.model_fields.values():
        for inner in _named(field.annotation):
            _models(inner, seen)
    return seen


def _named(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _named(arg)]


def _nullable(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _nullable(typing.get_args(annotation)[0])
    return origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(annotation)


STORED = sorted(set().union(*(_models(m, set()) for m in (Agent, Task, Skill, UserSettings))), key=lambda m: m.__name__)


@pytest.mark.parametrize("model", STORED, ids=lambda m: m.__name__)
def test_a_field_that_may_be_null_defaults_to_null(model: type[BaseModel]) -> None:
    wrong = [
        name
        for name, field in model.model_fields.items()
        if _nullable(field.annotation)
        and not field.is_required()
        and field.get_default(call_default_factory=True) is not None
    ]
    assert wrong == [], f"{model.__name__}: null would be stored as absent and read back as the default"


def test_the_walk_finds_the_nested_models() -> None:
    names = {model.__name__ for model in STORED}
    assert {"Agent", "MemoryPolicy", "ModelSpec", "InferenceSettings", "NamespaceRule"} <= names


def test_the_check_catches_a_nullable_field_with_another_default() -> None:
    class Bad(BaseModel):
        limit: int | None = 5

    assert _nullable(Bad.model_fields["limit"].annotation)
    assert Bad.model_fields["limit"].get_default(call_default_factory=True) == 5
