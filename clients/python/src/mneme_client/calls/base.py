"""A :class:`Call` (one HTTP request plus the parser of its answer) and the readers of answers, shared by every
group of calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from mneme_client import models
from mneme_client.errors import ApiError, ClientError

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
RunStarted = models.RunView | models.RunAcceptedView
TERMINAL = frozenset({"succeeded", "failed", "cancelled"})
LONG_POLL_GRACE_SECONDS = 30.0


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None  # this request's, instead of the client's (a long-poll waits longer)
    repeatable: bool = False  # a POST whose second sending does nothing more than its first (mneme_client.retry)

    def options(self) -> dict[str, Any]:
        """The keyword arguments of ``httpx.Client.request`` for this call."""
        options: dict[str, Any] = {"params": self.params or None, "json": self.body, "headers": self.headers or None}
        return options | ({"timeout": self.timeout} if self.timeout is not None else {})


def seg(value: str) -> str:
    """``value`` as one path segment."""
    if not value:
        raise ClientError("an id in a path cannot be empty")
    return quote(value, safe="")


def checked(response: httpx.Response) -> httpx.Response:
    if response.status_code >= 400:
        try:
            body = response.json()
        except ValueError:
            body = None
        raise ApiError.from_answer(response.status_code, body, response.text)
    return response


def as_model(model: type[M]) -> Callable[[httpx.Response], M]:
    return lambda response: model.model_validate_json(checked(response).content)


def as_dict(response: httpx.Response) -> dict[str, Any]:
    body = checked(response).json()
    if not isinstance(body, dict):
        raise ClientError(f"expected a JSON object, got {type(body).__name__}")
    return body


class Tagged(dict[str, Any]):
    """A resource's JSON with its entity tag (``etag``, the answer's ``ETag``): pass it as ``if_match`` to a
    save that must not overwrite a change made since (the API answers 412 instead)."""

    etag: str | None = None


def as_tagged(response: httpx.Response) -> Tagged:
    tagged = Tagged(as_dict(response))
    tagged.etag = response.headers.get("ETag")
    return tagged


#: a page of a list: its items and the cursor of the next page (None on the last one)
ListPage = tuple[list[dict[str, Any]], str | None]


def as_page(key: str) -> Callable[[httpx.Response], ListPage]:
    def parse(response: httpx.Response) -> ListPage:
        body = as_dict(response)
        cursor = body.get("cursor")
        return list(body.get(key) or []), cursor if isinstance(cursor, str) and cursor else None

    return parse


def as_nothing(response: httpx.Response) -> None:
    checked(response)


def started(response: httpx.Response) -> RunStarted:
    checked(response)
    if response.status_code == 202:
        return models.RunAcceptedView.model_validate_json(response.content)
    return models.RunView.model_validate_json(response.content)


def body_of(value: BaseModel | dict[str, Any]) -> dict[str, Any]:
    return value.model_dump(mode="json", by_alias=True, exclude_unset=True) if isinstance(value, BaseModel) else value


def compact(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def precondition(if_match: str | None) -> dict[str, str]:
    """``If-Match``: the ``etag`` of what was read (412 if it changed since), or ``"*"`` (412 if it is gone)."""
    return {"If-Match": if_match} if if_match else {}
