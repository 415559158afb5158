"""Settings, agents, tasks and skills (SPEC §2, §10): the caller's own, plus global ones to read."""

from __future__ import annotations

from typing import Any

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.listing import PageCursor, PageLimit
from mneme.api.presenters import agent_view, settings_view, skill_view, task_view
from mneme.api.responses import no_content
from mneme.engine import configuration
from mneme.models.requests import AgentBody, SkillBody, TaskBody
from mneme.models.user import UserSettings

router = new_router()


# ------------------------------------------------------------------------------------------ settings
@router.get("/v1/me/settings")
def get_settings() -> dict[str, Any]:
    caller = caller_of(router)
    return settings_view(configuration.get_settings(deps_of(router), caller), caller)


@router.put("/v1/me/settings")
def put_settings(body: UserSettings) -> dict[str, Any]:
    caller = caller_of(router)
    return settings_view(configuration.put_settings(deps_of(router), caller, body), caller)


# ------------------------------------------------------------------------------------------ agents
@router.get("/v1/agents")
def list_agents(limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The caller's agents and the global ones, by id, a page at a time."""
    listed, next_cursor = configuration.list_agents(
        deps_of(router), caller_of(router), agent_view, limit=limit, cursor=cursor
    )
    return {"agents": listed, "cursor": next_cursor}


@router.get("/v1/agents/<agent_id>")
def get_agent(agent_id: str) -> dict[str, Any]:
    return agent_view(configuration.visible_agent(deps_of(router), caller_of(router), agent_id))


@router.put("/v1/agents/<agent_id>")
def put_agent(agent_id: str, body: AgentBody) -> dict[str, Any]:
    saved = configuration.put_agent(deps_of(router), caller_of(router), agent_id, body)
    return agent_view(saved.item, saved.warnings)


@router.delete("/v1/agents/<agent_id>")
def delete_agent(agent_id: str) -> Any:
    configuration.delete_agent(deps_of(router), caller_of(router), agent_id)
    return no_content()


# ------------------------------------------------------------------------------------------ tasks
@router.get("/v1/agents/<agent_id>/tasks")
def list_tasks(agent_id: str, limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The agent's tasks, by id, a page at a time."""
    listed, next_cursor = configuration.list_tasks(
        deps_of(router), caller_of(router), agent_id, task_view, limit=limit, cursor=cursor
    )
    return {"tasks": listed, "cursor": next_cursor}


@router.get("/v1/agents/<agent_id>/tasks/<task_id>")
def get_task(agent_id: str, task_id: str) -> dict[str, Any]:
    found = configuration.get_task(deps_of(router), caller_of(router), agent_id, task_id)
    return task_view(found.item, found.warnings)


@router.put("/v1/agents/<agent_id>/tasks/<task_id>")
def put_task(agent_id: str, task_id: str, body: TaskBody) -> dict[str, Any]:
    saved = configuration.put_task(deps_of(router), caller_of(router), agent_id, task_id, body)
    return task_view(saved.item, saved.warnings)


@router.delete("/v1/agents/<agent_id>/tasks/<task_id>")
def delete_task(agent_id: str, task_id: str) -> Any:
    configuration.delete_task(deps_of(router), caller_of(router), agent_id, task_id)
    return no_content()


# ------------------------------------------------------------------------------------------ skills
@router.get("/v1/skills")
def list_skills(limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The caller's skills and the global ones, by name, a page at a time."""
    listed, next_cursor = configuration.list_skills(
        deps_of(router), caller_of(router), skill_view, limit=limit, cursor=cursor
    )
    return {"skills": listed, "cursor": next_cursor}


@router.get("/v1/skills/<name>")
def get_skill(name: str) -> dict[str, Any]:
    return skill_view(configuration.get_skill(deps_of(router), caller_of(router), name))


@router.put("/v1/skills/<name>")
def put_skill(name: str, body: SkillBody) -> dict[str, Any]:
    return skill_view(configuration.put_skill(deps_of(router), caller_of(router), name, body))


@router.delete("/v1/skills/<name>")
def delete_skill(name: str) -> Any:
    configuration.delete_skill(deps_of(router), caller_of(router), name)
    return no_content()
