"""How a configuration item (agent, task, skill, settings) is stored: the model's JSON in ``data``, its null fields
left out, and read back ignoring the fields a later release added."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from mneme.adapters.dynamo.items import PK, SK, Item, Key
from mneme.models.common import STORED

M = TypeVar("M", bound=BaseModel)


def config_item(key: Key, model: BaseModel, **attrs: str) -> Item:
    """The item of an agent, task, skill or settings: its JSON names only the fields set (no model field that may
    be null has another default, so a null and an absent field read the same). With :func:`read_model` ignoring the
    fields it does not know, a release reads what a later one stored: a rollback keeps the agents it can run."""
    return {PK: key[0], SK: key[1], **attrs, "data": model.model_dump_json(exclude_none=True)}


def model_or_none(cls: type[M], item: Item | None) -> M | None:
    return read_model(cls, item) if item is not None else None


def read_model(cls: type[M], item: Item) -> M:
    """The stored model; a field this release does not know (a later release wrote it) is ignored, here only: the
    API refuses unknown fields. A value an earlier release accepted loads (:data:`~mneme.models.common.STORED`)."""
    return cls.model_validate_json(item["data"], extra="ignore", context=STORED)
