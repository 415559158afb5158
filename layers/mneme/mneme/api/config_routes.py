"""Settings, agents, tasks and skills (SPEC §2, §10): the caller's own, plus global ones to read."""

from __future__ import annotations

from typing import Any

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.listing import PageCursor, PageLimit, RevisionLimit
from mneme.api.preconditions import (
    CONDITIONAL,
    CONDITIONAL_DELETE,
    CONDITIONAL_READ,
    IfMatch,
    IfNoneMatch,
    precondition_of,
    tagged,
    tagged_read,
)
from mneme.api.presenters import agent_view, config_revisions_view, settings_view, skill_view, task_view
from mneme.api.responses import OK, no_content, refusals
from mneme.engine import configuration, revision_history
from mneme.models.requests import AgentBody, SkillBody, TaskBody
from mneme.models.user import UserSettings

router = new_router()

_GLOBAL_WRITE = "a global resource (`global: true`, or one an admin made) changed by a user who is not an admin"
_NO_AGENT = "no agent of this id the caller may read (their own, or a global one)"
_NO_TASK = "no such agent or task the caller may read"
_NO_SKILL = "no skill of this name the caller may read (their own, or a global one)"
_LARGE = "the body is over 2,500,000 bytes, or the saved item over what the database stores (400 KB)"


# ------------------------------------------------------------------------------------------ settings
@router.get("/v1/me/settings", responses=CONDITIONAL_READ)
def get_settings(if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    caller = caller_of(router)
    settings = configuration.get_settings(deps_of(router), caller)
    return tagged_read(settings_view(settings, caller), settings, if_match, if_none_match)


@router.put("/v1/me/settings", responses={**CONDITIONAL, **refusals({413: _LARGE})})
def put_settings(body: UserSettings, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    caller = caller_of(router)
    condition = precondition_of(if_match, if_none_match)
    settings = configuration.put_settings(deps_of(router), caller, body, condition)
    return tagged(settings_view(settings, caller), settings)


# ------------------------------------------------------------------------------------------ agents
@router.get("/v1/agents")
def list_agents(limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The caller's agents and the global ones, by id, a page at a time."""
    listed, next_cursor = configuration.list_agents(
        deps_of(router), caller_of(router), agent_view, limit=limit, cursor=cursor
    )
    return {"agents": listed, "cursor": next_cursor}


@router.get("/v1/agents/<agent_id>", responses={**CONDITIONAL_READ, **refusals({404: _NO_AGENT})})
def get_agent(agent_id: str, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    agent = configuration.visible_agent(deps_of(router), caller_of(router), agent_id)
    return tagged_read(agent_view(agent), agent, if_match, if_none_match)


@router.put(
    "/v1/agents/<agent_id>",
    responses={
        **CONDITIONAL,
        **refusals({403: _GLOBAL_WRITE, 409: "the label is another agent's of the same owner", 413: _LARGE}),
    },
)
def put_agent(agent_id: str, body: AgentBody, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    condition = precondition_of(if_match, if_none_match)
    saved = configuration.put_agent(deps_of(router), caller_of(router), agent_id, body, condition)
    return tagged(agent_view(saved.item, saved.warnings + body.ignored()), saved.item)


@router.get("/v1/agents/<agent_id>/revisions", responses={**OK, **refusals({404: _NO_AGENT})})
def agent_revisions(agent_id: str, limit: RevisionLimit = 20, cursor: PageCursor = None) -> dict[str, Any]:
    """The agent's saves and deletes, newest first, each with the agent as it was (restore: PUT its fields). Of a
    global agent a user who is not an admin sees only its current version, and a 404 once it is deleted."""
    page = revision_history.agent_history(deps_of(router), caller_of(router), agent_id, limit=limit, cursor=cursor)
    return config_revisions_view(page, "agent", agent_view)


@router.delete(
    "/v1/agents/<agent_id>", responses={**CONDITIONAL_DELETE, **refusals({403: _GLOBAL_WRITE, 404: _NO_AGENT})}
)
def delete_agent(agent_id: str, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    """With ``If-Match``, only the agent as it was read (else 412, nothing deleted); its tasks go with it.
    ``If-None-Match: *`` fails on an agent that exists (RFC 9110 §13.1.2), so it is a 412 too."""
    condition = precondition_of(if_match, if_none_match)
    configuration.delete_agent(deps_of(router), caller_of(router), agent_id, condition)
    return no_content()


# ------------------------------------------------------------------------------------------ tasks
@router.get("/v1/agents/<agent_id>/tasks", responses={**OK, **refusals({404: _NO_AGENT})})
def list_tasks(agent_id: str, limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The agent's tasks, by id, a page at a time."""
    listed, next_cursor = configuration.list_tasks(
        deps_of(router), caller_of(router), agent_id, task_view, limit=limit, cursor=cursor
    )
    return {"tasks": listed, "cursor": next_cursor}


@router.get("/v1/agents/<agent_id>/tasks/<task_id>", responses={**CONDITIONAL_READ, **refusals({404: _NO_TASK})})
def get_task(agent_id: str, task_id: str, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    found = configuration.get_task(deps_of(router), caller_of(router), agent_id, task_id)
    return tagged_read(task_view(found.item, found.warnings), found.item, if_match, if_none_match)


@router.put(
    "/v1/agents/<agent_id>/tasks/<task_id>",
    responses={**CONDITIONAL, **refusals({403: _GLOBAL_WRITE, 404: _NO_AGENT, 413: _LARGE})},
)
def put_task(
    agent_id: str, task_id: str, body: TaskBody, if_match: IfMatch = None, if_none_match: IfNoneMatch = None
) -> Any:
    condition = precondition_of(if_match, if_none_match)
    saved = configuration.put_task(deps_of(router), caller_of(router), agent_id, task_id, body, condition)
    return tagged(task_view(saved.item, saved.warnings + body.ignored()), saved.item)


@router.get("/v1/agents/<agent_id>/tasks/<task_id>/revisions", responses={**OK, **refusals({404: _NO_TASK})})
def task_revisions(agent_id: str, task_id: str, limit: RevisionLimit = 20, cursor: PageCursor = None) -> dict[str, Any]:
    page = revision_history.task_history(
        deps_of(router), caller_of(router), agent_id, task_id, limit=limit, cursor=cursor
    )
    return config_revisions_view(page, "task", task_view)


@router.delete(
    "/v1/agents/<agent_id>/tasks/<task_id>",
    responses={**CONDITIONAL_DELETE, **refusals({403: _GLOBAL_WRITE, 404: _NO_TASK})},
)
def delete_task(agent_id: str, task_id: str, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    condition = precondition_of(if_match, if_none_match)
    configuration.delete_task(deps_of(router), caller_of(router), agent_id, task_id, condition)
    return no_content()


# ------------------------------------------------------------------------------------------ skills
@router.get("/v1/skills")
def list_skills(limit: PageLimit = None, cursor: PageCursor = None) -> dict[str, Any]:
    """The caller's skills and the global ones, by name, a page at a time."""
    listed, next_cursor = configuration.list_skills(
        deps_of(router), caller_of(router), skill_view, limit=limit, cursor=cursor
    )
    return {"skills": listed, "cursor": next_cursor}


@router.get("/v1/skills/<name>", responses={**CONDITIONAL_READ, **refusals({404: _NO_SKILL})})
def get_skill(name: str, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    skill = configuration.get_skill(deps_of(router), caller_of(router), name)
    return tagged_read(skill_view(skill), skill, if_match, if_none_match)


@router.put("/v1/skills/<name>", responses={**CONDITIONAL, **refusals({403: _GLOBAL_WRITE, 413: _LARGE})})
def put_skill(name: str, body: SkillBody, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    condition = precondition_of(if_match, if_none_match)
    saved = configuration.put_skill(deps_of(router), caller_of(router), name, body, condition)
    return tagged(skill_view(saved.item, saved.warnings), saved.item)


@router.get("/v1/skills/<name>/revisions", responses={**OK, **refusals({404: _NO_SKILL})})
def skill_revisions(name: str, limit: RevisionLimit = 20, cursor: PageCursor = None) -> dict[str, Any]:
    page = revision_history.skill_history(deps_of(router), caller_of(router), name, limit=limit, cursor=cursor)
    return config_revisions_view(page, "skill", skill_view)


@router.delete("/v1/skills/<name>", responses={**CONDITIONAL_DELETE, **refusals({403: _GLOBAL_WRITE, 404: _NO_SKILL})})
def delete_skill(name: str, if_match: IfMatch = None, if_none_match: IfNoneMatch = None) -> Any:
    condition = precondition_of(if_match, if_none_match)
    configuration.delete_skill(deps_of(router), caller_of(router), name, condition)
    return no_content()
