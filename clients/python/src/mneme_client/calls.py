"""What each client method sends and how its answer is read: shared by the sync and the async client.

A :class:`Call` is one HTTP request plus the parser of its answer; the clients only execute calls, so both
speak the same API by construction.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
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


def _started(response: httpx.Response) -> RunStarted:
    checked(response)
    if response.status_code == 202:
        return models.RunAcceptedView.model_validate_json(response.content)
    return models.RunView.model_validate_json(response.content)


def _body(value: BaseModel | dict[str, Any]) -> dict[str, Any]:
    return value.model_dump(mode="json", by_alias=True, exclude_unset=True) if isinstance(value, BaseModel) else value


def _compact(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def health() -> Call[dict[str, Any]]:
    return Call("GET", "/v1/health", as_dict)


def list_agents(cursor: str | None = None) -> Call[ListPage]:
    """A page of the caller's agents (the clients' ``list_agents`` follows the cursors to the last)."""
    return Call("GET", "/v1/agents", as_page("agents"), params=_compact(cursor=cursor))


def get_agent(agent_id: str) -> Call[Tagged]:
    return Call("GET", f"/v1/agents/{seg(agent_id)}", as_tagged)


def put_agent(agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None) -> Call[Tagged]:
    """``if_match``: the ``etag`` of what was read (412 if it changed since), or ``"*"`` (412 if it does not exist)."""
    headers = {"If-Match": if_match} if if_match else {}
    return Call("PUT", f"/v1/agents/{seg(agent_id)}", as_tagged, body=_body(agent), headers=headers)


def agent_revisions(agent_id: str, cursor: str | None = None) -> Call[ListPage]:
    """A page of the agent's revisions, newest first (each ``{at, change, by, etag, agent}``)."""
    return Call("GET", f"/v1/agents/{seg(agent_id)}/revisions", as_page("revisions"), params=_compact(cursor=cursor))


def delete_agent(agent_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/agents/{seg(agent_id)}", as_nothing)


def start_run(agent_id: str, text: str, *, idempotency_key: str | None = None, **options: Any) -> Call[RunStarted]:
    body = models.RunRequest.model_validate({"agent_id": agent_id, "input": text, **_compact(**options)})
    # always a key: a retry after a lost answer (or a 429/503) answers the run the first request started
    headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
    return Call("POST", "/v1/runs", _started, body=_body(body), headers=headers, repeatable=True)


def get_run(run_id: str) -> Call[models.RunView]:
    return Call("GET", f"/v1/runs/{seg(run_id)}", as_model(models.RunView))


def run_status(run_id: str) -> Call[str]:
    """The run's ``status`` alone (``GET /v1/runs/{id}``)."""
    return Call("GET", f"/v1/runs/{seg(run_id)}", lambda response: str(as_dict(response).get("status")))


def run_events(
    run_id: str, *, after: int | None = None, cursor: str | None = None, wait: float | None = None, tree: bool = False
) -> Call[models.EventsView]:
    params = _compact(after=after, cursor=cursor, wait=wait, tree="true" if tree else None, limit=1000)
    path = f"/v1/runs/{seg(run_id)}/events"
    # a long-poll answers after up to ``wait`` seconds: a client timeout shorter than that is not a dead server
    timeout = wait + LONG_POLL_GRACE_SECONDS if wait else None
    return Call("GET", path, as_model(models.EventsView), params=params, timeout=timeout)


def list_runs(
    *,
    status: str | None = None,
    agent_id: str | None = None,
    chat_id: str | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[models.RunListView]:
    """``GET /v1/runs``: one page of the caller's root runs, newest first (``since``/``until``: ISO 8601)."""
    params = _compact(
        status=status,
        agent_id=agent_id,
        chat_id=chat_id,
        since=_iso(since),
        until=_iso(until),
        limit=limit,
        cursor=cursor,
    )
    return Call("GET", "/v1/runs", as_model(models.RunListView), params=params)


def _iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def cancel_run(run_id: str) -> Call[models.CancelView]:
    return Call("POST", f"/v1/runs/{seg(run_id)}/cancel", as_model(models.CancelView), repeatable=True)


def answer_approval(run_id: str, call_id: str, decision: str) -> Call[dict[str, Any]]:
    """Answer a pending tool approval: ``decision`` ``once``, ``always`` (remembered) or ``deny``."""
    body = {"call_id": call_id, "decision": decision}
    # the same answer sent again answers as the first did and writes nothing
    return Call("POST", f"/v1/runs/{seg(run_id)}/approvals", as_dict, body=body, repeatable=True)


def search_memory(
    query: str,
    *,
    namespaces: list[str] | None = None,
    top_k: int | None = None,
    lines: bool = False,
    retrieval: str | None = None,
    explain: bool = False,
    as_of: datetime | str | None = None,
) -> Call[models.SearchView]:
    """``lines``: each chat-line hit with the lines said around it (its ``context``), as a run's model sees it;
    ``retrieval``: ``hybrid`` (the default), ``vector`` or ``keyword``; ``explain``: the view's ``explanation``
    (each hit's score parts, every dropped candidate and why); ``as_of``: what was recalled at that moment."""
    fields = _compact(query=query, namespaces=namespaces or None, top_k=top_k, lines=lines or None)
    fields |= _compact(retrieval=retrieval, explain=explain or None, as_of=_iso(as_of))
    body = models.SearchBody.model_validate(fields)
    return Call("POST", "/v1/memory/search", as_model(models.SearchView), body=_body(body), repeatable=True)


def write_memory(
    namespace: str,
    content: str,
    *,
    tags: list[str] | None = None,
    ttl_seconds: int | None = None,
    observed_at: datetime | str | None = None,
) -> Call[models.DocumentsView]:
    """``observed_at``: when it was said or true (default: now), for a conversation written after the fact."""
    fields = _compact(namespace=namespace, content=content, tags=tags or None, ttl_seconds=ttl_seconds)
    body = models.DocumentBody.model_validate(fields | _compact(observed_at=_iso(observed_at)))
    return Call("POST", "/v1/memory/documents", as_model(models.DocumentsView), body=_body(body))


def write_memory_batch(items: Sequence[Mapping[str, Any]]) -> Call[models.BatchResultsView]:
    """Up to 100 entries in one request, each answered by its index; an item's ``client_token`` makes its retry
    a no-op (``replayed``)."""
    body = models.DocumentBatchBody.model_validate({"items": [dict(item) for item in items]})
    tokened = all(item.get("client_token") for item in items)  # each item's retry a no-op (``replayed``)
    path, parse = "/v1/memory/documents:batch", as_model(models.BatchResultsView)
    return Call("POST", path, parse, body=_body(body), repeatable=tokened)


def memory_namespaces() -> Call[models.NamespacesView]:
    return Call("GET", "/v1/memory/namespaces", as_model(models.NamespacesView))


def memory_page(namespace: str, cursor: str | None = None, *, limit: int = 200) -> Call[models.DocumentPageView]:
    params = _compact(namespace=namespace, cursor=cursor, limit=limit)
    return Call("GET", "/v1/memory/documents", as_model(models.DocumentPageView), params=params)


def list_chats(cursor: str | None = None) -> Call[ListPage]:
    """A page of the caller's chats, newest first (the clients' ``list_chats`` follows the cursors)."""
    return Call("GET", "/v1/chats", as_page("chats"), params=_compact(cursor=cursor))


def get_chat(chat_id: str, *, cursor: str | None = None) -> Call[models.ChatView]:
    return Call("GET", f"/v1/chats/{seg(chat_id)}", as_model(models.ChatView), params=_compact(cursor=cursor))


def delete_chat(chat_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/chats/{seg(chat_id)}", as_nothing)
