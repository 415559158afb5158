"""Chats (SPEC §10): only the caller's own; another user's chat is a 404. Messages are read a page at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.views.pages import ENVELOPE_BYTES, response_bytes, start_after, take_page
from mneme.errors import NotFound
from mneme.models.chat import Chat
from mneme.models.user import Caller


def list_chats(
    deps: Deps, caller: Caller, view: Callable[[Chat], dict[str, Any]], *, limit: int | None, cursor: str | None
) -> tuple[list[Any], str | None]:
    """A page of the caller's chats, newest first (as many as a response holds without ``limit``: only what
    the page shows is read), and the cursor of the next page."""
    stored = deps.chats.iter_chats(caller.user_id, after=cursor)
    return take_page(((at, view(chat)) for at, chat in stored), limit=limit, reserve=ENVELOPE_BYTES, what="chat")


def chat_messages(deps: Deps, caller: Caller, chat_id: str, *, limit: int, cursor: str | None = None) -> dict[str, Any]:
    """The chat (its header fields), a page of its messages after ``cursor`` and the next cursor."""
    chat = deps.chats.get_chat(caller.user_id, chat_id, messages=False)
    if chat is None:
        raise NotFound(f"no chat {chat_id!r}")
    header = chat.model_dump(mode="json", exclude={"messages"})
    stored = deps.chats.iter_messages(caller.user_id, chat_id, after=start_after(cursor))
    entries = ((seq, message.model_dump(mode="json")) for seq, message in stored)
    reserve = ENVELOPE_BYTES + response_bytes(header)
    messages, next_cursor = take_page(entries, limit=limit, reserve=reserve, what="message")
    return {**header, "messages": messages, "cursor": next_cursor}


def delete_chat(deps: Deps, caller: Caller, chat_id: str) -> None:
    if not deps.chats.delete_chat(caller.user_id, chat_id):
        raise NotFound(f"no chat {chat_id!r}")
