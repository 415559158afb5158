"""Chats with their messages (SPEC §10): only the caller's own."""

from __future__ import annotations

from typing import Any

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.presenters import chat_view
from mneme.api.responses import no_content
from mneme.engine import chats

router = new_router()


@router.get("/v1/chats")
def list_chats() -> dict[str, Any]:
    return {"chats": [chat_view(c, messages=False) for c in chats.list_chats(deps_of(router), caller_of(router))]}


@router.get("/v1/chats/<chat_id>")
def get_chat(chat_id: str) -> dict[str, Any]:
    return chat_view(chats.get_chat(deps_of(router), caller_of(router), chat_id), messages=True)


@router.delete("/v1/chats/<chat_id>")
def delete_chat(chat_id: str) -> Any:
    chats.delete_chat(deps_of(router), caller_of(router), chat_id)
    return no_content()
