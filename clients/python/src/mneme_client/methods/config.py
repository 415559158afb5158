"""Agents and their tasks (with their revisions), sync and async."""

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

    def delete_agent(self, agent_id: str, *, if_match: str | None = None) -> None:
        """``if_match``: ApiError 412 (nothing deleted) if the agent changed since it was read."""
        self.call(calls.delete_agent(agent_id, if_match=if_match))

    def list_tasks(self, agent_id: str) -> list[dict[str, Any]]:
        """Every task of the agent, by id, page after page."""
        return self.every(partial(calls.list_tasks, agent_id))

    def get_task(self, agent_id: str, task_id: str) -> calls.Tagged:
        return self.call(calls.get_task(agent_id, task_id))

    def put_task(
        self, agent_id: str, task_id: str, task: models.TaskBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the task; ``if_match=get_task(...).etag``: ApiError 412 rather than overwrite a change since."""
        return self.call(calls.put_task(agent_id, task_id, task, if_match=if_match))

    def task_revisions(self, agent_id: str, task_id: str) -> list[dict[str, Any]]:
        """Every revision of the task, newest first: restore one with ``put_task(..., r["task"])``."""
        return self.every(partial(calls.task_revisions, agent_id, task_id))

    def delete_task(self, agent_id: str, task_id: str, *, if_match: str | None = None) -> None:
        self.call(calls.delete_task(agent_id, task_id, if_match=if_match))


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

    async def delete_agent(self, agent_id: str, *, if_match: str | None = None) -> None:
        await self.call(calls.delete_agent(agent_id, if_match=if_match))

    async def list_tasks(self, agent_id: str) -> list[dict[str, Any]]:
        return await self.every(partial(calls.list_tasks, agent_id))

    async def get_task(self, agent_id: str, task_id: str) -> calls.Tagged:
        return await self.call(calls.get_task(agent_id, task_id))

    async def put_task(
        self, agent_id: str, task_id: str, task: models.TaskBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        return await self.call(calls.put_task(agent_id, task_id, task, if_match=if_match))

    async def task_revisions(self, agent_id: str, task_id: str) -> list[dict[str, Any]]:
        return await self.every(partial(calls.task_revisions, agent_id, task_id))

    async def delete_task(self, agent_id: str, task_id: str, *, if_match: str | None = None) -> None:
        await self.call(calls.delete_task(agent_id, task_id, if_match=if_match))
