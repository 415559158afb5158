"""Calls of runs (start, read, events, list, cancel, approvals) and chats."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from mneme_client import models
from mneme_client.calls.base import (
    LONG_POLL_GRACE_SECONDS,
    Call,
    ListPage,
    RunStarted,
    as_dict,
    as_model,
    as_nothing,
    as_page,
    body_of,
    compact,
    iso,
    seg,
    started,
)


def start_run(agent_id: str, text: str, *, idempotency_key: str | None = None, **options: Any) -> Call[RunStarted]:
    body = models.RunRequest.model_validate({"agent_id": agent_id, "input": text, **compact(**options)})
    # always a key: a retry after a lost answer (or a 429/503) answers the run the first request started
    headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
    return Call("POST", "/v1/runs", started, body=body_of(body), headers=headers, repeatable=True)


def get_run(run_id: str) -> Call[models.RunView]:
    return Call("GET", f"/v1/runs/{seg(run_id)}", as_model(models.RunView))


def run_status(run_id: str) -> Call[str]:
    """The run's ``status`` alone (``GET /v1/runs/{id}``)."""
    return Call("GET", f"/v1/runs/{seg(run_id)}", lambda response: str(as_dict(response).get("status")))


def run_events(
    run_id: str,
    *,
    after: int | None = None,
    cursor: str | None = None,
    wait: float | None = None,
    tree: bool = False,
    limit: int = 1000,
) -> Call[models.EventsView]:
    params = compact(after=after, cursor=cursor, wait=wait, tree="true" if tree else None, limit=limit)
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
    params = compact(
        status=status,
        agent_id=agent_id,
        chat_id=chat_id,
        since=iso(since),
        until=iso(until),
        limit=limit,
        cursor=cursor,
    )
    return Call("GET", "/v1/runs", as_model(models.RunListView), params=params)


def cancel_run(run_id: str) -> Call[models.CancelView]:
    return Call("POST", f"/v1/runs/{seg(run_id)}/cancel", as_model(models.CancelView), repeatable=True)


def answer_approval(run_id: str, call_id: str, decision: str) -> Call[dict[str, Any]]:
    """Answer a pending tool approval: ``decision`` ``once``, ``always`` (remembered) or ``deny``."""
    body = {"call_id": call_id, "decision": decision}
    # the same answer sent again answers as the first did and writes nothing
    return Call("POST", f"/v1/runs/{seg(run_id)}/approvals", as_dict, body=body, repeatable=True)


def list_chats(cursor: str | None = None) -> Call[ListPage]:
    """A page of the caller's chats, newest first (the clients' ``list_chats`` follows the cursors)."""
    return Call("GET", "/v1/chats", as_page("chats"), params=compact(cursor=cursor))


def get_chat(chat_id: str, *, cursor: str | None = None, limit: int | None = None) -> Call[models.ChatView]:
    """The chat with a page of its messages (``cursor``: the answer's, for the next page; ``limit``: its size)."""
    params = compact(cursor=cursor, limit=limit)
    return Call("GET", f"/v1/chats/{seg(chat_id)}", as_model(models.ChatView), params=params)


def delete_chat(chat_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/chats/{seg(chat_id)}", as_nothing)


def run_context(run_id: str, *, limit: int | None = None, cursor: str | None = None) -> Call[models.RequestsView]:
    """``GET /v1/runs/{id}/context``: a page of the requests the run sent its model, in call order."""
    params = compact(limit=limit, cursor=cursor)
    return Call("GET", f"/v1/runs/{seg(run_id)}/context", as_model(models.RequestsView), params=params)


def run_audit(run_id: str) -> Call[models.AuditTreeView]:
    """``GET /v1/runs/{id}/audit``: the audit records of the run and of the runs it delegated to."""
    return Call("GET", f"/v1/runs/{seg(run_id)}/audit", as_model(models.AuditTreeView))


def preview_context(agent_id: str, text: str, *, explain: bool = False, **options: Any) -> Call[models.PreviewView]:
    """``POST /v1/context/preview``: the request a run with this input would send its model, without running it
    (``explain``: why each memory was or was not injected)."""
    body = models.RunRequest.model_validate({"agent_id": agent_id, "input": text, **compact(**options)})
    params = {"explain": "true"} if explain else {}
    path, parse = "/v1/context/preview", as_model(models.PreviewView)
    return Call("POST", path, parse, params=params, body=body_of(body), repeatable=True)
