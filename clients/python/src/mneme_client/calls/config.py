"""Calls of the configuration: agents, their tasks, skills, the caller's settings."""

from __future__ import annotations

from typing import Any

from mneme_client import models
from mneme_client.calls.base import (
    Call,
    ListPage,
    Tagged,
    as_dict,
    as_nothing,
    as_page,
    as_tagged,
    body_of,
    compact,
    precondition,
    seg,
)


def health() -> Call[dict[str, Any]]:
    return Call("GET", "/v1/health", as_dict)


def list_agents(cursor: str | None = None) -> Call[ListPage]:
    """A page of the caller's agents (the clients' ``list_agents`` follows the cursors to the last)."""
    return Call("GET", "/v1/agents", as_page("agents"), params=compact(cursor=cursor))


def get_agent(agent_id: str) -> Call[Tagged]:
    return Call("GET", f"/v1/agents/{seg(agent_id)}", as_tagged)


def put_agent(agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None) -> Call[Tagged]:
    """``if_match``: the ``etag`` of what was read (412 if it changed since), or ``"*"`` (412 if it does not exist)."""
    headers = {"If-Match": if_match} if if_match else {}
    return Call("PUT", f"/v1/agents/{seg(agent_id)}", as_tagged, body=body_of(agent), headers=headers)


def agent_revisions(agent_id: str, cursor: str | None = None) -> Call[ListPage]:
    """A page of the agent's revisions, newest first (each ``{at, change, by, etag, agent}``)."""
    return Call("GET", f"/v1/agents/{seg(agent_id)}/revisions", as_page("revisions"), params=compact(cursor=cursor))


def delete_agent(agent_id: str, *, if_match: str | None = None) -> Call[None]:
    return Call("DELETE", f"/v1/agents/{seg(agent_id)}", as_nothing, headers=precondition(if_match))


def list_tasks(agent_id: str, cursor: str | None = None) -> Call[ListPage]:
    """A page of the agent's tasks, by id (the clients' ``list_tasks`` follows the cursors to the last)."""
    return Call("GET", f"/v1/agents/{seg(agent_id)}/tasks", as_page("tasks"), params=compact(cursor=cursor))


def get_task(agent_id: str, task_id: str) -> Call[Tagged]:
    return Call("GET", f"/v1/agents/{seg(agent_id)}/tasks/{seg(task_id)}", as_tagged)


def put_task(
    agent_id: str, task_id: str, task: models.TaskBody | dict[str, Any], *, if_match: str | None = None
) -> Call[Tagged]:
    path = f"/v1/agents/{seg(agent_id)}/tasks/{seg(task_id)}"
    return Call("PUT", path, as_tagged, body=body_of(task), headers=precondition(if_match))


def task_revisions(agent_id: str, task_id: str, cursor: str | None = None) -> Call[ListPage]:
    """A page of the task's revisions, newest first (each ``{at, change, etag, task}``)."""
    path = f"/v1/agents/{seg(agent_id)}/tasks/{seg(task_id)}/revisions"
    return Call("GET", path, as_page("revisions"), params=compact(cursor=cursor))


def delete_task(agent_id: str, task_id: str, *, if_match: str | None = None) -> Call[None]:
    path = f"/v1/agents/{seg(agent_id)}/tasks/{seg(task_id)}"
    return Call("DELETE", path, as_nothing, headers=precondition(if_match))


def list_skills(cursor: str | None = None) -> Call[ListPage]:
    """A page of the caller's skills and the global ones, by name."""
    return Call("GET", "/v1/skills", as_page("skills"), params=compact(cursor=cursor))


def get_skill(name: str) -> Call[Tagged]:
    return Call("GET", f"/v1/skills/{seg(name)}", as_tagged)


def put_skill(name: str, skill: models.SkillBody | dict[str, Any], *, if_match: str | None = None) -> Call[Tagged]:
    return Call("PUT", f"/v1/skills/{seg(name)}", as_tagged, body=body_of(skill), headers=precondition(if_match))


def skill_revisions(name: str, cursor: str | None = None) -> Call[ListPage]:
    """A page of the skill's revisions, newest first (each ``{at, change, etag, skill}``)."""
    return Call("GET", f"/v1/skills/{seg(name)}/revisions", as_page("revisions"), params=compact(cursor=cursor))


def delete_skill(name: str, *, if_match: str | None = None) -> Call[None]:
    return Call("DELETE", f"/v1/skills/{seg(name)}", as_nothing, headers=precondition(if_match))


def get_settings() -> Call[Tagged]:
    """The caller's settings (``name``, ``email``, ``language``, ``timezone``) with their ``etag``."""
    return Call("GET", "/v1/me/settings", as_tagged)


def put_settings(settings: models.UserSettings | dict[str, Any], *, if_match: str | None = None) -> Call[Tagged]:
    return Call("PUT", "/v1/me/settings", as_tagged, body=body_of(settings), headers=precondition(if_match))
