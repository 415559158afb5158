"""Agents (and their revisions), sync and async."""

from __future__ import annotations

from functools import partial
from typing import Any

from mneme_client import calls, models
from mneme_client.transport import AsyncBase, SyncBase


class Agents(SyncBase):
    def list_agents(self) -> list[dict[str, Any]]:
        return self.every(calls.list_agents)

    def get_agent(self, agent_id: str) -> calls.Tagged:
        return self.call(calls.get_agent(agent_id))

    def put_agent(
        self, agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the agent; ``if_match=get_agent(...).etag``: ApiError 412 rather than overwrite a change since."""
        return self.call(calls.put_agent(agent_id, agent, if_match=if_match))

    def agent_revisions(self, agent_id: str) -> list[dict[str, Any]]:
        """Every revision of the agent, newest first: restore one with ``put_agent(agent_id, r["agent"], ...)``."""
        return self.every(partial(calls.agent_revisions, agent_id))

    def delete_agent(self, agent_id: str) -> None:
        self.call(calls.delete_agent(agent_id))


class AsyncAgents(AsyncBase):
    async def list_agents(self) -> list[dict[str, Any]]:
        return await self.every(calls.list_agents)

    async def get_agent(self, agent_id: str) -> calls.Tagged:
        return await self.call(calls.get_agent(agent_id))

    async def put_agent(
        self, agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the agent; ``if_match=get_agent(...).etag``: ApiError 412 rather than overwrite a change since."""
        return await self.call(calls.put_agent(agent_id, agent, if_match=if_match))

    async def agent_revisions(self, agent_id: str) -> list[dict[str, Any]]:
        """Every revision of the agent, newest first: restore one with ``put_agent(agent_id, r["agent"], ...)``."""
        return await self.every(partial(calls.agent_revisions, agent_id))

    async def delete_agent(self, agent_id: str) -> None:
        await self.call(calls.delete_agent(agent_id))
