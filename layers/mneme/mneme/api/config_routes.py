"""Settings, agents, tasks and skills (SPEC §2, §10): the caller's own, plus global ones to read."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from mneme.api.bodies import AgentBody, SkillBody, TaskBody, dump
from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import no_content
from mneme.context.variables import task_context_warnings
from mneme.errors import Conflict, Forbidden, InvalidInput, NotFound
from mneme.models.agent import Agent, Skill, Task
from mneme.models.common import GLOBAL_OWNER, SLUG_PATTERN
from mneme.models.user import Caller, UserSettings
from mneme.ports import ConfigStore

router = new_router()
T = TypeVar("T")
_SLUG = re.compile(SLUG_PATTERN)


def _slug(value: str, field: str, *, for_write: bool) -> str:
    if not _SLUG.match(value):
        if for_write:
            raise InvalidInput(f"{field} must be lowercase letters, digits and hyphens (≤ 64)", field=field)
        raise NotFound(f"no {'skill' if field == 'name' else field.removesuffix('_id')} {value!r}")
    return value


def _owner(caller: Caller, is_global: bool) -> str:
    if is_global and not caller.is_admin:
        raise Forbidden("only admins create global resources", field="global")
    return GLOBAL_OWNER if is_global else caller.user_id


def visible_agent(config: ConfigStore, caller: Caller, agent_id: str) -> Agent:
    """The caller's own agent, else a global one; anything else is a 404 (never a 403)."""
    agent = config.find_agent(caller.user_id, agent_id)
    if agent is None:
        raise NotFound(f"no agent {agent_id!r}")
    return agent


def _agent_api(agent: Agent, **extra: Any) -> dict[str, Any]:
    return dump(agent, **{"global": agent.owner == GLOBAL_OWNER}, **extra)


# ------------------------------------------------------------------------------------------ settings
@router.get("/v1/me/settings")
def get_settings() -> dict[str, Any]:
    caller = caller_of(router)
    settings = deps_of(router).config.get_settings(caller.user_id) or UserSettings()
    return {**settings.model_dump(mode="json"), "user_id": caller.user_id}


@router.put("/v1/me/settings")
def put_settings(body: UserSettings) -> dict[str, Any]:
    caller = caller_of(router)
    deps_of(router).config.put_settings(caller.user_id, body)
    return {**body.model_dump(mode="json"), "user_id": caller.user_id}


# ------------------------------------------------------------------------------------------ agents
@router.get("/v1/agents")
def list_agents() -> dict[str, Any]:
    caller = caller_of(router)
    config = deps_of(router).config
    agents = config.visible_agents(caller.user_id)
    return {"agents": [_agent_api(a) for a in agents]}


@router.get("/v1/agents/<agent_id>")
def get_agent(agent_id: str) -> dict[str, Any]:
    _slug(agent_id, "agent_id", for_write=False)
    return _agent_api(visible_agent(deps_of(router).config, caller_of(router), agent_id))


@router.put("/v1/agents/<agent_id>")
def put_agent(agent_id: str, body: AgentBody) -> dict[str, Any]:
    caller = caller_of(router)
    config = deps_of(router).config
    agent = Agent(
        agent_id=_slug(agent_id, "agent_id", for_write=True),
        owner=_owner(caller, body.is_global),
        **body.model_dump(exclude={"is_global"}),
    )
    for other in config.list_agents(agent.owner):
        if other.agent_id != agent.agent_id and other.label.casefold() == agent.label.casefold():
            raise Conflict(f"label {agent.label!r} is already used by agent {other.agent_id!r}", field="label")
    warnings = body.memory_policy.hints()
    missing = set(agent.skills) - {s.name for s in config.get_skills(agent.owner, agent.skills)}
    if agent.owner != GLOBAL_OWNER:
        missing -= {s.name for s in config.get_skills(GLOBAL_OWNER, sorted(missing))}
    warnings += [f"skill {name!r} does not exist yet" for name in sorted(missing)]
    config.put_agent(agent)
    return _agent_api(agent, warnings=warnings)


@router.delete("/v1/agents/<agent_id>")
def delete_agent(agent_id: str) -> Any:
    caller = caller_of(router)
    _slug(agent_id, "agent_id", for_write=False)
    config = deps_of(router).config
    if not config.delete_agent(caller.user_id, agent_id) and not (
        caller.is_admin and config.delete_agent(GLOBAL_OWNER, agent_id)
    ):
        raise NotFound(f"no agent {agent_id!r}")
    return no_content()


# ------------------------------------------------------------------------------------------ tasks
def _task_api(task: Task, **extra: Any) -> dict[str, Any]:
    return dump(task, **extra)


@router.get("/v1/agents/<agent_id>/tasks")
def list_tasks(agent_id: str) -> dict[str, Any]:
    _slug(agent_id, "agent_id", for_write=False)
    config = deps_of(router).config
    agent = visible_agent(config, caller_of(router), agent_id)
    return {"tasks": [_task_api(t) for t in config.list_tasks(agent.owner, agent_id)]}


@router.get("/v1/agents/<agent_id>/tasks/<task_id>")
def get_task(agent_id: str, task_id: str) -> dict[str, Any]:
    _slug(agent_id, "agent_id", for_write=False)
    _slug(task_id, "task_id", for_write=False)
    config = deps_of(router).config
    agent = visible_agent(config, caller_of(router), agent_id)
    task = config.get_task(agent.owner, agent_id, task_id)
    if task is None:
        raise NotFound(f"no task {task_id!r} on agent {agent_id!r}")
    return _task_api(task, warnings=task_context_warnings(task.context_prompt))


@router.put("/v1/agents/<agent_id>/tasks/<task_id>")
def put_task(agent_id: str, task_id: str, body: TaskBody) -> dict[str, Any]:
    caller = caller_of(router)
    config = deps_of(router).config
    agent = visible_agent(config, caller, _slug(agent_id, "agent_id", for_write=False))
    if agent.owner == GLOBAL_OWNER and not caller.is_admin:
        raise Forbidden("only admins change the tasks of a global agent")
    task = Task(
        task_id=_slug(task_id, "task_id", for_write=True),
        agent_id=agent_id,
        owner=agent.owner,
        **body.model_dump(),
    )
    config.put_task(task)
    warnings = task_context_warnings(task.context_prompt) + body.memory_policy.hints()
    return _task_api(task, warnings=warnings)


@router.delete("/v1/agents/<agent_id>/tasks/<task_id>")
def delete_task(agent_id: str, task_id: str) -> Any:
    caller = caller_of(router)
    config = deps_of(router).config
    agent = visible_agent(config, caller, _slug(agent_id, "agent_id", for_write=False))
    if (agent.owner == GLOBAL_OWNER and not caller.is_admin) or not config.delete_task(agent.owner, agent_id, task_id):
        raise NotFound(f"no task {task_id!r} on agent {agent_id!r}")
    return no_content()


# ------------------------------------------------------------------------------------------ skills
def _skill_api(skill: Skill) -> dict[str, Any]:
    return dump(skill, **{"global": skill.owner == GLOBAL_OWNER})


@router.get("/v1/skills")
def list_skills() -> dict[str, Any]:
    caller = caller_of(router)
    config = deps_of(router).config
    skills = config.visible_skills(caller.user_id)
    return {"skills": [_skill_api(s) for s in skills]}


@router.get("/v1/skills/<name>")
def get_skill(name: str) -> dict[str, Any]:
    caller = caller_of(router)
    config = deps_of(router).config
    _slug(name, "name", for_write=False)
    skill = config.find_skill(caller.user_id, name)
    if skill is None:
        raise NotFound(f"no skill {name!r}")
    return _skill_api(skill)


@router.put("/v1/skills/<name>")
def put_skill(name: str, body: SkillBody) -> dict[str, Any]:
    caller = caller_of(router)
    skill = Skill(
        name=_slug(name, "name", for_write=True),
        owner=_owner(caller, body.is_global),
        **body.model_dump(exclude={"is_global"}),
    )
    deps_of(router).config.put_skill(skill)
    return _skill_api(skill)


@router.delete("/v1/skills/<name>")
def delete_skill(name: str) -> Any:
    caller = caller_of(router)
    _slug(name, "name", for_write=False)
    config = deps_of(router).config
    if not config.delete_skill(caller.user_id, name) and not (
        caller.is_admin and config.delete_skill(GLOBAL_OWNER, name)
    ):
        raise NotFound(f"no skill {name!r}")
    return no_content()
