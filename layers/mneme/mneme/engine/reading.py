"""Reading a run's events and recorded requests and a chat's messages, a page at a time (engine/pages.py).

Each page is the caller's own: a run or chat of another user is a 404, like one that does not exist.
"""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.pages import response_bytes, start_after, take_page
from mneme.errors import NotFound
from mneme.models.user import Caller

#: the page's own keys and the response envelope (status, headers) around the entries
_ENVELOPE = 2_000


def _own_run(deps: Deps, caller: Caller, run_id: str) -> None:
    run = deps.runs.get_run(run_id)
    if run is None or run.user_id != caller.user_id:
        raise NotFound(f"no run {run_id!r}")


def run_events(
    deps: Deps, caller: Caller, run_id: str, *, limit: int, cursor: str | None = None, after: int | None = None
) -> dict[str, Any]:
    """``{events, cursor}``: the run's events after ``cursor`` (or ``after``, a ``seq``), in order."""
    _own_run(deps, caller, run_id)
    entries = ((e.seq, e.to_api()) for e in deps.runs.iter_events(run_id, after=start_after(cursor, after)))
    events, next_cursor = take_page(entries, limit=limit, reserve=_ENVELOPE, what="event")
    return {"events": events, "cursor": next_cursor}


def run_context(deps: Deps, caller: Caller, run_id: str, *, limit: int, cursor: str | None = None) -> dict[str, Any]:
    """``{requests, cursor}``: the exact model requests of the run after ``cursor``, one per model call."""
    _own_run(deps, caller, run_id)
    entries = deps.runs.iter_requests(run_id, after=start_after(cursor))
    requests, next_cursor = take_page(entries, limit=limit, reserve=_ENVELOPE, what="model request")
    return {"requests": requests, "cursor": next_cursor}


def chat_messages(deps: Deps, caller: Caller, chat_id: str, *, limit: int, cursor: str | None = None) -> dict[str, Any]:
    """The chat (its header fields), a page of its messages after ``cursor`` and the next cursor."""
    chat = deps.chats.get_chat(caller.user_id, chat_id, messages=False)
    if chat is None:
        raise NotFound(f"no chat {chat_id!r}")
    header = chat.model_dump(mode="json", exclude={"messages"})
    stored = deps.chats.iter_messages(caller.user_id, chat_id, after=start_after(cursor))
    entries = ((seq, message.model_dump(mode="json")) for seq, message in stored)
    messages, next_cursor = take_page(entries, limit=limit, reserve=_ENVELOPE + response_bytes(header), what="message")
    return {**header, "messages": messages, "cursor": next_cursor}
