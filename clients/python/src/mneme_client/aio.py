"""The asynchronous client: ``AsyncClient(base_url, token)``, the same methods as :class:`Client`, awaited
(the async mixins of :mod:`mneme_client.methods`, over :class:`mneme_client.transport.AsyncBase`)."""

from __future__ import annotations

from mneme_client.methods.account import AsyncAccount
from mneme_client.methods.chats import AsyncChats
from mneme_client.methods.config import AsyncAgents
from mneme_client.methods.documents import AsyncDocuments
from mneme_client.methods.memory import AsyncMemory
from mneme_client.methods.skills import AsyncSkills
from mneme_client.methods.streams import AsyncStreams


class AsyncClient(AsyncAgents, AsyncSkills, AsyncStreams, AsyncMemory, AsyncDocuments, AsyncChats, AsyncAccount):
    """mneme's HTTP API over ``httpx.AsyncClient``; see :class:`mneme_client.Client` for the defaults."""

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
