"""Chats with their messages (SPEC §10): only the caller's own."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.listing import PageCursor, PageLimit
from mneme.api.presenters import chat_list_view
from mneme.api.responses import no_content, refusals
from mneme.api.run_views import answers
from mneme.api.views import ChatView
from mneme.engine.views import chats
from mneme.spec_limits import PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX

router = new_router()

_NO_CHAT = "no chat of the caller's with this id"


@router.get("/v1/chats")
def list_chats(limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The caller's chats without their messages, newest first, a page at a time (``cursor`` is null on the
    last page; without ``limit`` a page holds as many as one response carries)."""
    caller = caller_of(router)
    listed, next_cursor = chats.list_chats(deps_of(router), caller, chat_list_view, limit=limit, cursor=cursor)
    return {"chats": listed, "cursor": next_cursor}


@router.get(
    "/v1/chats/<chat_id>",
    responses={
        **answers(200, ChatView),
        **refusals({404: _NO_CHAT, 413: "one message is larger than a response may carry"}),
    },
)
def get_chat(
    chat_id: str,
    limit: Annotated[int, Query(ge=1, le=PAGE_LIMIT_MAX)] = PAGE_LIMIT_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=12, description="the cursor of the previous page")] = None,
) -> dict[str, Any]:
    """The chat and its messages, oldest first, a page at a time (``cursor`` is null on the last page)."""
    return chats.chat_messages(deps_of(router), caller_of(router), chat_id, limit=limit, cursor=cursor)


@router.delete("/v1/chats/<chat_id>", responses=refusals({404: _NO_CHAT}))
def delete_chat(chat_id: str) -> Any:
    chats.delete_chat(deps_of(router), caller_of(router), chat_id)
    return no_content()
