"""Chats with their messages (SPEC §10): only the caller's own."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import no_content
from mneme.api.views import ChatView, answers
from mneme.engine import reading
from mneme.errors import NotFound
from mneme.limits import PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX
from mneme.models.chat import Chat

router = new_router()


def _chat_api(chat: Chat) -> dict[str, Any]:
    return chat.model_dump(mode="json", exclude={"messages"})


@router.get("/v1/chats")
def list_chats() -> dict[str, Any]:
    chats = deps_of(router).chats.list_chats(caller_of(router).user_id)
    return {"chats": [_chat_api(c) for c in chats]}


@router.get("/v1/chats/<chat_id>", responses=answers(200, ChatView))
def get_chat(
    chat_id: str,
    limit: Annotated[int, Query(ge=1, le=PAGE_LIMIT_MAX)] = PAGE_LIMIT_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=12, description="the cursor of the previous page")] = None,
) -> dict[str, Any]:
    """The chat and its messages, oldest first, a page at a time (``cursor`` is null on the last page)."""
    return reading.chat_messages(deps_of(router), caller_of(router), chat_id, limit=limit, cursor=cursor)


@router.delete("/v1/chats/<chat_id>")
def delete_chat(chat_id: str) -> Any:
    if not deps_of(router).chats.delete_chat(caller_of(router).user_id, chat_id):
        raise NotFound(f"no chat {chat_id!r}")
    return no_content()
