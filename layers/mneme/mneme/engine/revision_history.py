"""The history of an agent, task or skill: the revisions its saves and deletes through the API made, newest first
(``GET …/revisions``). A user sees the history of what a GET of the resource shows them: their own, or — when they
have none of that id, and never had — the global one's. A deleted resource keeps its history: restoring it is
saving a revision's fields again. A global resource's past is its admins' (only they change or restore it): a user
who is not an admin sees of it only the current version, as its GET does, and nothing once it is deleted — so what an
admin took out of a global agent, task or skill (a pasted key, withdrawn instructions) is not readable by every
user from its history. Each revision names who made it (``by``: an admin's id on a global resource's; the owner's
on their own); a user who is not an admin is never shown who changed a global resource."""

from __future__ import annotations

from mneme.engine.configuration import visible_agent
from mneme.engine.deps import Deps
from mneme.errors import NotFound
from mneme.models.common import GLOBAL_OWNER, is_slug
from mneme.models.config_revision import ConfigRef, ConfigRevisionPage
from mneme.models.user import Caller
from mneme.ports.stores import ConfigRevisions
from mneme.records import replace


def agent_history(deps: Deps, caller: Caller, agent_id: str, *, limit: int, cursor: str | None) -> ConfigRevisionPage:
    ref = ConfigRef("agent", _name(agent_id, "agent"))
    own = deps.config.get_agent(caller.user_id, ref.name) is not None
    return _own_else_global(deps, caller, ref, own=own, limit=limit, cursor=cursor)


def skill_history(deps: Deps, caller: Caller, name: str, *, limit: int, cursor: str | None) -> ConfigRevisionPage:
    ref = ConfigRef("skill", _name(name, "skill"))
    own = bool(deps.config.get_skills(caller.user_id, [ref.name]))
    return _own_else_global(deps, caller, ref, own=own, limit=limit, cursor=cursor)


def task_history(
    deps: Deps, caller: Caller, agent_id: str, task_id: str, *, limit: int, cursor: str | None
) -> ConfigRevisionPage:
    """The task's, under the agent a GET shows (the agent must exist; its tasks go with it)."""
    agent = visible_agent(deps, caller, agent_id)
    ref = ConfigRef("task", _name(task_id, "task"), agent.agent_id)
    if agent.owner == GLOBAL_OWNER and not caller.is_admin:
        current = deps.config.get_task(agent.owner, agent.agent_id, ref.name) is not None
        return _current_only(deps, ref, exists=current, cursor=cursor)
    page = _store(deps).history(agent.owner, ref, limit=limit, cursor=cursor)
    if not page.revisions and cursor is None and deps.config.get_task(agent.owner, agent.agent_id, ref.name) is None:
        raise NotFound(f"no task {task_id!r} on agent {agent_id!r}")
    return page


def _own_else_global(
    deps: Deps, caller: Caller, ref: ConfigRef, *, own: bool, limit: int, cursor: str | None
) -> ConfigRevisionPage:
    store = _store(deps)
    owner = caller.user_id if own or store.history(caller.user_id, ref, limit=1, cursor=None).revisions else None
    shown = deps.config.find_agent if ref.kind == "agent" else deps.config.find_skill
    if owner is None and not caller.is_admin:
        return _current_only(deps, ref, exists=shown(caller.user_id, ref.name) is not None, cursor=cursor)
    page = store.history(owner or GLOBAL_OWNER, ref, limit=limit, cursor=cursor)
    if not page.revisions and cursor is None and not own and shown(caller.user_id, ref.name) is None:
        raise NotFound(f"no {ref.kind} {ref.name!r}")
    return page


def _current_only(deps: Deps, ref: ConfigRef, *, exists: bool, cursor: str | None) -> ConfigRevisionPage:
    """A global resource's history as a user who is not an admin sees it: its latest save while it exists (what its
    GET shows), on one page, without the admin who made it; a deleted one is a 404 like its GET."""
    if not exists:
        raise NotFound(f"no {ref.kind} {ref.name!r}")
    latest = [] if cursor is not None else _store(deps).history(GLOBAL_OWNER, ref, limit=1, cursor=None).revisions
    return ConfigRevisionPage(revisions=[replace(r, by=None) for r in latest if r.change == "saved"], cursor=None)


def _name(value: str, kind: str) -> str:
    if not is_slug(value):
        raise NotFound(f"no {kind} {value!r}")
    return value


def _store(deps: Deps) -> ConfigRevisions:
    if deps.config_revisions is None:
        raise NotFound("this deployment keeps no revisions of agents, tasks and skills")
    return deps.config_revisions
