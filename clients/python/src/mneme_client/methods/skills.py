"""Skills (with their revisions) and the caller's settings, sync and async."""

from __future__ import annotations

from functools import partial
from typing import Any

from mneme_client import calls, models
from mneme_client.transport import AsyncBase, SyncBase


class Skills(SyncBase):
    def list_skills(self) -> list[dict[str, Any]]:
        """Every skill the caller sees (its own and the global ones), by name, page after page."""
        return self.every(calls.list_skills)

    def get_skill(self, name: str) -> calls.Tagged:
        return self.call(calls.get_skill(name))

    def put_skill(
        self, name: str, skill: models.SkillBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the skill; ``if_match=get_skill(...).etag``: ApiError 412 rather than overwrite a change since."""
        return self.call(calls.put_skill(name, skill, if_match=if_match))

    def skill_revisions(self, name: str) -> list[dict[str, Any]]:
        """Every revision of the skill, newest first: restore one with ``put_skill(name, r["skill"])``."""
        return self.every(partial(calls.skill_revisions, name))

    def delete_skill(self, name: str, *, if_match: str | None = None) -> None:
        self.call(calls.delete_skill(name, if_match=if_match))

    def get_settings(self) -> calls.Tagged:
        """The caller's settings (``name``, ``email``, ``language``, ``timezone``) with their ``etag``."""
        return self.call(calls.get_settings())

    def put_settings(
        self, settings: models.UserSettings | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the settings; ``if_match=get_settings().etag``: ApiError 412 rather than overwrite a change."""
        return self.call(calls.put_settings(settings, if_match=if_match))


class AsyncSkills(AsyncBase):
    async def list_skills(self) -> list[dict[str, Any]]:
        return await self.every(calls.list_skills)

    async def get_skill(self, name: str) -> calls.Tagged:
        return await self.call(calls.get_skill(name))

    async def put_skill(
        self, name: str, skill: models.SkillBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        return await self.call(calls.put_skill(name, skill, if_match=if_match))

    async def skill_revisions(self, name: str) -> list[dict[str, Any]]:
        return await self.every(partial(calls.skill_revisions, name))

    async def delete_skill(self, name: str, *, if_match: str | None = None) -> None:
        await self.call(calls.delete_skill(name, if_match=if_match))

    async def get_settings(self) -> calls.Tagged:
        return await self.call(calls.get_settings())

    async def put_settings(
        self, settings: models.UserSettings | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        return await self.call(calls.put_settings(settings, if_match=if_match))
