"""Chats with their messages (SPEC §10): only the caller's own."""

from __future__ import annotations

from typing import Any

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import no_content
from mneme.errors import NotFound
from mneme.models.chat import Chat

router = new_router()


def _chat_api(chat: Chat, *, messages: bool) -> dict[str, Any]:
    body = chat.model_dump(mode="json", exclude={"messages"})
    if messages:
        body["messages"] = [m.model_dump(mode="json") for m in chat.messages]
    return body


@router.get("/v1/chats")
def list_chats() -> dict[str, Any]:
    chats = deps_of(router).chats.list_chats(caller_of(router).user_id)
    return {"chats": [_chat_api(c, messages=False) for c in chats]}


@router.get("/v1/chats/<chat_id>")
def get_chat(chat_id: str) -> dict[str, Any]:
    chat = deps_of(router).chats.get_chat(caller_of(router).user_id, chat_id)
    if chat is None:
        raise NotFound(f"no chat {chat_id!r}")
    return _chat_api(chat, messages=True)


@router.delete("/v1/chats/<chat_id>")
def delete_chat(chat_id: str) -> Any:
    if not deps_of(router).chats.delete_chat(caller_of(router).user_id, chat_id):
        raise NotFound(f"no chat {chat_id!r}")
    return no_content()
