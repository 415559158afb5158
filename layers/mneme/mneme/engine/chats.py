"""Chats (SPEC §10): only the caller's own; another user's chat is a 404."""

from __future__ import annotations

from mneme.engine.deps import Deps
from mneme.errors import NotFound
from mneme.models.chat import Chat
from mneme.models.user import Caller


def list_chats(deps: Deps, caller: Caller) -> list[Chat]:
    return deps.chats.list_chats(caller.user_id)


def get_chat(deps: Deps, caller: Caller, chat_id: str) -> Chat:
    chat = deps.chats.get_chat(caller.user_id, chat_id)
    if chat is None:
        raise NotFound(f"no chat {chat_id!r}")
    return chat


def delete_chat(deps: Deps, caller: Caller, chat_id: str) -> None:
    if not deps.chats.delete_chat(caller.user_id, chat_id):
        raise NotFound(f"no chat {chat_id!r}")
