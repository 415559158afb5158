"""Configuration use cases (SPEC §2, §10): settings, agents, tasks and skills — the caller's own, plus the
global ones (admin-made) to read. Another user's resource is a 404, never a 403."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Generic, TypeVar

from mneme.context.caching import supports_reasoning
from mneme.context.variables import task_context_warnings
from mneme.delegation_rules import is_self, refers_to
from mneme.egress import public_https_problem
from mneme.engine.agent_checks import hides_global, max_tokens_fit, skill_hides_global
from mneme.engine.config_audit import deleted_from, record_delete, record_save, stamp
from mneme.engine.deps import Deps
from mneme.engine.runs.tool_args import check_external_schemas
from mneme.engine.views.pages import sorted_page
from mneme.errors import Conflict, Forbidden, InvalidInput, NotFound
from mneme.memory.policy import save_hints
from mneme.models.agent import Agent, ModelSpec, Skill, Task
from mneme.models.common import GLOBAL_OWNER, is_slug
from mneme.models.mcp import destination_problem
from mneme.models.precondition import Precondition
from mneme.models.requests import AgentBody, SkillBody, TaskBody
from mneme.models.user import Caller, UserSettings
from mneme.records import Record, field

T = TypeVar("T")
#: a listed item as the API shows it, and the page of them a list route answers (with its cursor)
View = Callable[[T], dict[str, Any]]
Listed = tuple[list[Any], str | None]


class Saved(Record, Generic[T]):
    """A resource as stored, with the warnings and hints its save produced (the save still succeeded)."""

    item: T
    warnings: list[str] = field(default_factory=list)


def _slug(value: str, field_name: str, *, for_write: bool) -> str:
    if not is_slug(value):
        if for_write:
            raise InvalidInput(f"{field_name} must be lowercase letters, digits and hyphens (≤ 64)", field=field_name)
        raise NotFound(f"no {'skill' if field_name == 'name' else field_name.removesuffix('_id')} {value!r}")
    return value


def _after(cursor: str | None) -> str | None:
    """A list's cursor: the id the previous page ended with."""
    if cursor is not None and not is_slug(cursor):
        raise InvalidInput("cursor is not valid: pass the cursor of the previous page", field="cursor")
    return cursor


def _owner(caller: Caller, is_global: bool) -> str:
    if is_global and not caller.is_admin:
        raise Forbidden("only admins create global resources", field="global")
    return GLOBAL_OWNER if is_global else caller.user_id


# ------------------------------------------------------------------------------------------ settings
def get_settings(deps: Deps, caller: Caller) -> UserSettings:
    return deps.config.get_settings(caller.user_id) or UserSettings()


def put_settings(
    deps: Deps, caller: Caller, settings: UserSettings, precondition: Precondition | None = None
) -> UserSettings:
    deps.config.put_settings(caller.user_id, settings, precondition=precondition)
    return settings


# ------------------------------------------------------------------------------------------ agents
def visible_agent(deps: Deps, caller: Caller, agent_id: str) -> Agent:
    """The caller's own agent, else a global one; anything else is a 404."""
    agent = deps.config.find_agent(caller.user_id, _slug(agent_id, "agent_id", for_write=False))
    if agent is None:
        raise NotFound(f"no agent {agent_id!r}")
    return agent


def list_agents(deps: Deps, caller: Caller, view: View[Agent], *, limit: int | None, cursor: str | None) -> Listed:
    """A page of the caller's agents and the global ones, by id (as many as a response holds without
    ``limit``), and the cursor of the next page."""
    agents = deps.config.visible_agents(caller.user_id)
    return sorted_page(agents, key=attrgetter("agent_id"), view=view, limit=limit, cursor=_after(cursor), what="agent")


def put_agent(
    deps: Deps, caller: Caller, agent_id: str, body: AgentBody, precondition: Precondition | None = None
) -> Saved[Agent]:
    config = deps.config
    model = body.model
    if model.inference.reasoning is not None and not supports_reasoning(model.provider, model.model_id):
        raise InvalidInput(
            f"model {model.model_id!r} ({model.provider}) does not support extended thinking "
            "(Bedrock Claude 3.7 Sonnet and Claude 4 up to 4.6 do)",
            field="model.inference.reasoning",
        )
    if model.endpoint and deps.settings.openai_base_url_for(model.endpoint) is None:  # the key goes there
        raise InvalidInput(
            f"endpoint {model.endpoint!r} is not one this deployment allows "
            "(MNEME_OPENAI_BASE_URL, MNEME_OPENAI_ENDPOINTS)",
            field="model.endpoint",
        )
    _check_model_destination(deps, agent_model=body.model)
    if model.provider == "openai-compatible" and deps.settings.openai_base_url_for(model.endpoint) is None:
        raise InvalidInput(
            "an openai-compatible model needs a base URL: set model.endpoint, or the deployment's default "
            "MNEME_OPENAI_BASE_URL (it is unset here)",
            field="model.endpoint",
        )
    secret = model.api_key_secret_arn
    if secret and not deps.settings.openai_key_secret_allowed(secret):  # its value is sent to the endpoint
        raise InvalidInput(
            f"api_key_secret_arn {secret!r} is not one of this deployment's model API key secrets "
            "(OpenAIApiKeySecretArns, MNEME_OPENAI_API_KEY_SECRET_ARNS)",
            field="model.api_key_secret_arn",
        )
    agent = Agent(
        agent_id=_slug(agent_id, "agent_id", for_write=True),
        owner=_owner(caller, body.is_global),
        **body.model_dump(exclude={"is_global"}),
    )
    owned = config.list_agents(agent.owner)
    for other in owned:
        if other.agent_id != agent.agent_id and other.label.casefold() == agent.label.casefold():
            raise Conflict(f"label {agent.label!r} is already used by agent {other.agent_id!r}", field="label")
    _check_mcp_destinations(deps, agent)
    check_external_schemas([(tool.name, tool.input_schema) for tool in agent.external_tools])
    warnings = save_hints(agent.memory_policy, agent.tools, agent.owner) + max_tokens_fit(deps, agent)
    missing = set(agent.skills) - {s.name for s in config.get_skills(agent.owner, agent.skills)}
    if agent.owner != GLOBAL_OWNER:
        missing -= {s.name for s in config.get_skills(GLOBAL_OWNER, sorted(missing))}
    warnings += [f"skill {name!r} does not exist yet" for name in sorted(missing)]
    warnings += _delegate_warnings(deps, agent) + hides_global(deps, caller, agent, owned)
    if agent.default_task_id and config.get_task(agent.owner, agent.agent_id, agent.default_task_id) is None:
        warnings.append(f"default task {agent.default_task_id!r} does not exist yet: until it does, runs have no task")
    config.put_agent(agent, precondition=precondition, **(revision := stamp(deps, caller)))
    record_save(deps, caller, revision, agent)
    return Saved(agent, warnings)


def _delegate_warnings(deps: Deps, agent: Agent) -> list[str]:
    """What a run would refuse of the agent's delegates: itself, and (for a user's agent) an agent that does not
    exist yet — the agent is saved either way, as with a missing skill. A global agent's delegates are the
    running user's agents: none is missing at its save."""
    names = agent.delegate_names
    warnings = [
        f"delegate {n!r} is this agent itself: a run refuses to delegate to it" for n in names if is_self(n, agent)
    ]
    others = [name for name in names if not is_self(name, agent)]
    if others and agent.owner != GLOBAL_OWNER:
        known = deps.config.visible_agents(agent.owner)
        warnings += [f"delegate {n!r} does not exist yet" for n in others if not any(refers_to(n, a) for a in known)]
    return warnings


def _check_model_destination(deps: Deps, *, agent_model: ModelSpec) -> None:
    """The base URL an openai-compatible agent calls must be public https unless the deployment allows private
    networks (issue 31.8): refused at save; its name's addresses are checked again at every connection."""
    base = deps.settings.openai_base_url_for(agent_model.endpoint)
    if agent_model.provider != "openai-compatible" or not base or deps.settings.model_allow_private_networks:
        return
    problem = public_https_problem(base)
    if problem:
        raise InvalidInput(
            f"the model endpoint {base!r} is refused in this deployment: {problem} "
            "(MNEME_MODEL_ALLOW_PRIVATE_NETWORKS allows private networks)",
            field="model.endpoint",
        )


def _check_mcp_destinations(deps: Deps, agent: Agent) -> None:
    """On AWS an MCP server (and its token URL) must be public https: refused at save, not at every run."""
    allow = deps.settings.mcp_allow_private_networks
    for n, server in enumerate(agent.mcp_servers):
        for name, url in (("url", server.url), ("auth.token_url", server.auth.token_url)):
            problem = destination_problem(url, allow_private=allow) if url else None
            if problem:
                raise InvalidInput(problem, field=f"mcp_servers.{n}.{name}")


def delete_agent(deps: Deps, caller: Caller, agent_id: str, precondition: Precondition | None = None) -> None:
    """The caller's own agent; an admin may delete a global one. With a precondition, only the agent it was
    read as (else PreconditionFailed, nothing deleted)."""
    config = deps.config
    _slug(agent_id, "agent_id", for_write=False)
    rev = stamp(deps, caller)
    owner = deleted_from(caller, lambda o: config.delete_agent(o, agent_id, precondition=precondition, **rev))
    if owner is None:
        if config.get_agent(GLOBAL_OWNER, agent_id) is not None:  # one the caller sees and may not delete
            raise Forbidden(f"only admins delete the global agent {agent_id!r}")
        raise NotFound(f"no agent {agent_id!r}")
    record_delete(deps, caller, rev, "agent", agent_id, owner=owner, agent_id=agent_id)


# ------------------------------------------------------------------------------------------ tasks
def list_tasks(
    deps: Deps, caller: Caller, agent_id: str, view: View[Task], *, limit: int | None, cursor: str | None
) -> Listed:
    agent = visible_agent(deps, caller, agent_id)
    tasks = deps.config.list_tasks(agent.owner, agent.agent_id)
    return sorted_page(tasks, key=attrgetter("task_id"), view=view, limit=limit, cursor=_after(cursor), what="task")


def get_task(deps: Deps, caller: Caller, agent_id: str, task_id: str) -> Saved[Task]:
    agent = visible_agent(deps, caller, agent_id)
    task = deps.config.get_task(agent.owner, agent.agent_id, _slug(task_id, "task_id", for_write=False))
    if task is None:
        raise NotFound(f"no task {task_id!r} on agent {agent_id!r}")
    return Saved(task, task_context_warnings(task.context_prompt))


def put_task(
    deps: Deps, caller: Caller, agent_id: str, task_id: str, body: TaskBody, precondition: Precondition | None = None
) -> Saved[Task]:
    agent = visible_agent(deps, caller, agent_id)
    if agent.owner == GLOBAL_OWNER and not caller.is_admin:
        raise Forbidden("only admins change the tasks of a global agent")
    task = Task(
        task_id=_slug(task_id, "task_id", for_write=True),
        agent_id=agent.agent_id,
        owner=agent.owner,
        **body.model_dump(),
    )
    deps.config.put_task(task, precondition=precondition, **(revision := stamp(deps, caller)))
    record_save(deps, caller, revision, task)
    return Saved(task, task_context_warnings(task.context_prompt) + save_hints(task.memory_policy, (), agent.owner))


def delete_task(
    deps: Deps, caller: Caller, agent_id: str, task_id: str, precondition: Precondition | None = None
) -> None:
    agent = visible_agent(deps, caller, agent_id)
    if agent.owner == GLOBAL_OWNER and not caller.is_admin:
        raise Forbidden("only admins change the tasks of a global agent")
    rev = stamp(deps, caller)
    if not deps.config.delete_task(agent.owner, agent.agent_id, task_id, precondition=precondition, **rev):
        raise NotFound(f"no task {task_id!r} on agent {agent_id!r}")
    record_delete(deps, caller, rev, "task", task_id, owner=agent.owner, agent_id=agent.agent_id)


# ------------------------------------------------------------------------------------------ skills
def list_skills(deps: Deps, caller: Caller, view: View[Skill], *, limit: int | None, cursor: str | None) -> Listed:
    skills = deps.config.visible_skills(caller.user_id)
    return sorted_page(skills, key=attrgetter("name"), view=view, limit=limit, cursor=_after(cursor), what="skill")


def get_skill(deps: Deps, caller: Caller, name: str) -> Skill:
    skill = deps.config.find_skill(caller.user_id, _slug(name, "name", for_write=False))
    if skill is None:
        raise NotFound(f"no skill {name!r}")
    return skill


def put_skill(
    deps: Deps, caller: Caller, name: str, body: SkillBody, precondition: Precondition | None = None
) -> Saved[Skill]:
    skill = Skill(
        name=_slug(name, "name", for_write=True),
        owner=_owner(caller, body.is_global),
        **body.model_dump(exclude={"is_global"}),
    )
    warnings = skill_hides_global(deps, caller, skill)
    deps.config.put_skill(skill, precondition=precondition, **(revision := stamp(deps, caller)))
    record_save(deps, caller, revision, skill)
    return Saved(skill, warnings)


def delete_skill(deps: Deps, caller: Caller, name: str, precondition: Precondition | None = None) -> None:
    config = deps.config
    _slug(name, "name", for_write=False)
    rev = stamp(deps, caller)
    owner = deleted_from(caller, lambda o: config.delete_skill(o, name, precondition=precondition, **rev))
    if owner is None:
        if config.get_skills(GLOBAL_OWNER, [name]):  # one the caller sees and may not delete
            raise Forbidden(f"only admins delete the global skill {name!r}")
        raise NotFound(f"no skill {name!r}")
    record_delete(deps, caller, rev, "skill", name, owner=owner)
