"""Chats, and the service's health, sync and async."""

from __future__ import annotations

from typing import Any

from mneme_client import calls, models
from mneme_client.transport import AsyncBase, SyncBase


class Chats(SyncBase):
    def health(self) -> dict[str, Any]:
        return self.call(calls.health())

    def list_chats(self) -> list[dict[str, Any]]:
        return self.every(calls.list_chats)

    def get_chat(self, chat_id: str, *, cursor: str | None = None, limit: int | None = None) -> models.ChatView:
        return self.call(calls.get_chat(chat_id, cursor=cursor, limit=limit))

    def delete_chat(self, chat_id: str) -> None:
        self.call(calls.delete_chat(chat_id))


class AsyncChats(AsyncBase):
    async def health(self) -> dict[str, Any]:
        return await self.call(calls.health())

    async def list_chats(self) -> list[dict[str, Any]]:
        return await self.every(calls.list_chats)

    async def get_chat(self, chat_id: str, *, cursor: str | None = None, limit: int | None = None) -> models.ChatView:
        return await self.call(calls.get_chat(chat_id, cursor=cursor, limit=limit))

    async def delete_chat(self, chat_id: str) -> None:
        await self.call(calls.delete_chat(chat_id))
