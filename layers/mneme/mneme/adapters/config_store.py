"""ConfigStore over an ItemTable (main table): user settings, agents, tasks and skills.

Every owner's configuration is one partition ``PK = OWNER#<owner>`` (a user id, or ``GLOBAL_OWNER`` for
admin-created global agents, tasks and skills):

=========================== ===============================
``SK``                      item
=========================== ===============================
``SETTINGS``                the user's settings
``AGENT#<agent_id>``        an agent
``TASK#<agent_id>#<task>``  a task of that agent (same owner as the agent)
``SKILL#<name>``            a skill
=========================== ===============================

The model is stored as JSON text in ``data`` (exact round trip); ids are copied to top-level attributes
for readability. See ``docs/data-model.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from mneme.adapters.items import PK, SK, Item, ItemTable, Key, query_all
from mneme.errors import InvalidInput, NotFound
from mneme.models import Agent, Skill, Task, UserSettings
from mneme.models.common import GLOBAL_OWNER
from mneme.ports import OwnedItem, RunConfig

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
K = TypeVar("K")

SETTINGS_SK = "SETTINGS"


def owner_pk(owner: str) -> str:
    return f"OWNER#{owner}"


def agent_key(owner: str, agent_id: str) -> Key:
    return owner_pk(owner), f"AGENT#{agent_id}"


def task_key(owner: str, agent_id: str, task_id: str) -> Key:
    return owner_pk(owner), f"TASK#{agent_id}#{task_id}"


def skill_key(owner: str, name: str) -> Key:
    return owner_pk(owner), f"SKILL#{name}"


def settings_key(user_id: str) -> Key:
    return owner_pk(user_id), SETTINGS_SK


def _item(key: Key, model: BaseModel, **attrs: str) -> Item:
    return {PK: key[0], SK: key[1], **attrs, "data": model.model_dump_json()}


def _model(cls: type[M], item: Item | None) -> M | None:
    return cls.model_validate_json(item["data"]) if item is not None else None


def visibility_order(user_id: str) -> list[str]:
    """Whose resources a user sees, in precedence order: their own, then the global ones."""
    return list(dict.fromkeys([user_id, GLOBAL_OWNER]))


def first_visible(owners: Sequence[K], lookup: Callable[[K], T | None]) -> T | None:
    """The one "own, else global" rule: the first owner (in :func:`visibility_order`) that has it."""
    for owner in owners:
        found = lookup(owner)
        if found is not None:
            return found
    return None


def own_then_global(own: list[M], shared: list[M], key: str) -> list[M]:
    """A listing: the caller's own items and the global ones they do not shadow (same id), sorted by id."""
    taken = {getattr(item, key) for item in own}
    return sorted(own + [item for item in shared if getattr(item, key) not in taken], key=lambda i: getattr(i, key))


def _owner(value: str) -> str:
    if not value:
        raise InvalidInput("the owner must be set (a user id or the global owner)", field="owner")
    return value


class ItemConfigStore:
    def __init__(self, table: ItemTable) -> None:
        self._table = table

    # ------------------------------------------------------------------------------------- settings
    def get_settings(self, user_id: str) -> UserSettings | None:
        return _model(UserSettings, self._table.get(*settings_key(user_id)))

    def put_settings(self, user_id: str, settings: UserSettings) -> None:
        self._table.put(_item(settings_key(_owner(user_id)), settings, user_id=user_id))

    # ------------------------------------------------------------------------------------- agents
    def get_agent(self, owner: str, agent_id: str) -> Agent | None:
        return _model(Agent, self._table.get(*agent_key(owner, agent_id)))

    def list_agents(self, owner: str) -> list[Agent]:
        return self._list(Agent, owner, "AGENT#")

    def put_agent(self, agent: Agent) -> None:
        key = agent_key(_owner(agent.owner), agent.agent_id)
        self._table.put(_item(key, agent, owner=agent.owner, agent_id=agent.agent_id, label=agent.label))

    def delete_agent(self, owner: str, agent_id: str) -> bool:
        """Delete the agent and, with it, its tasks."""
        tasks = query_all(self._table, owner_pk(owner), sk_prefix=f"TASK#{agent_id}#")
        self._table.delete_many([(t[PK], t[SK]) for t in tasks])
        return self._table.delete(*agent_key(owner, agent_id))

    # ------------------------------------------------------------------------------------- tasks
    def get_task(self, owner: str, agent_id: str, task_id: str) -> Task | None:
        return _model(Task, self._table.get(*task_key(owner, agent_id, task_id)))

    def list_tasks(self, owner: str, agent_id: str) -> list[Task]:
        return self._list(Task, owner, f"TASK#{agent_id}#")

    def put_task(self, task: Task) -> None:
        key = task_key(_owner(task.owner), task.agent_id, task.task_id)
        self._table.put(_item(key, task, owner=task.owner, agent_id=task.agent_id, task_id=task.task_id))

    def delete_task(self, owner: str, agent_id: str, task_id: str) -> bool:
        return self._table.delete(*task_key(owner, agent_id, task_id))

    # ------------------------------------------------------------------------------------- skills
    def get_skills(self, owner: str, names: Sequence[str]) -> list[Skill]:
        """The named skills of one owner that exist, in the order of ``names``."""
        found = self._skills_by_key(self._table.batch_get([skill_key(owner, n) for n in names]))
        return [found[key] for key in dict.fromkeys(skill_key(owner, n) for n in names) if key in found]

    def list_skills(self, owner: str) -> list[Skill]:
        return self._list(Skill, owner, "SKILL#")

    def put_skill(self, skill: Skill) -> None:
        self._table.put(_item(skill_key(_owner(skill.owner), skill.name), skill, owner=skill.owner, name=skill.name))

    def delete_skill(self, owner: str, name: str) -> bool:
        return self._table.delete(*skill_key(owner, name))

    # ------------------------------------------------------------------------------------- visibility
    def find_agent(self, user_id: str, agent_id: str) -> Agent | None:
        return self.get_agent(user_id, agent_id) or self.get_agent(GLOBAL_OWNER, agent_id)

    def visible_agents(self, user_id: str) -> list[Agent]:
        return own_then_global(self.list_agents(user_id), self.list_agents(GLOBAL_OWNER), "agent_id")

    def find_skill(self, user_id: str, name: str) -> Skill | None:
        found = self.get_skills(user_id, [name]) or self.get_skills(GLOBAL_OWNER, [name])
        return found[0] if found else None

    def visible_skills(self, user_id: str) -> list[Skill]:
        return own_then_global(self.list_skills(user_id), self.list_skills(GLOBAL_OWNER), "name")

    # ------------------------------------------------------------------------------------- runs
    def load_run_config(self, user_id: str, agent_id: str, task_id: str | None) -> RunConfig:
        """Round trip 1 (one BatchGetItem): settings, the own and the global agent, and — when named —
        the task under both owners. Round trip 2 (only when needed): the agent's skills (agent owner
        first, then global) and its default task. An agent that names no default task and is run without
        one uses its only task, when it has exactly one (one query, only then). Nothing else is read."""
        owners = visibility_order(user_id)
        first: list[Key] = [settings_key(user_id), *(agent_key(o, agent_id) for o in owners)]
        if task_id is not None:
            first += [task_key(o, agent_id, task_id) for o in owners]
        items = {(i[PK], i[SK]): i for i in self._table.batch_get(first)}

        agent = first_visible(owners, lambda o: _model(Agent, items.get(agent_key(o, agent_id))))
        if agent is None:
            raise NotFound(f"agent {agent_id!r} not found", field="agent_id")
        owner = agent.owner or user_id
        settings = _model(UserSettings, items.get(settings_key(user_id))) or UserSettings()
        task: Task | None = None
        if task_id is not None:
            task = _model(Task, items.get(task_key(owner, agent_id, task_id)))
            if task is None:
                raise NotFound(f"task {task_id!r} of agent {agent_id!r} not found", field="task_id")

        skill_owners = visibility_order(owner)
        second = [skill_key(o, name) for name in agent.skills for o in skill_owners]
        default_key = task_key(owner, agent_id, agent.default_task_id) if agent.default_task_id else None
        if task_id is None and default_key is not None:
            second.append(default_key)
        found = self._table.batch_get(second) if second else []
        by_key = self._skills_by_key(found)
        skills: dict[str, Skill] = {}
        for name in agent.skills:
            keys = [skill_key(o, name) for o in skill_owners]
            skill = first_visible(keys, by_key.get)
            if skill is not None:
                skills.setdefault(name, skill)
        if task_id is None and default_key is not None:
            task = _model(Task, next((i for i in found if (i[PK], i[SK]) == default_key), None))
        elif task_id is None:
            task = self._sole_task(owner, agent_id)
        return RunConfig(settings=settings, agent=agent, task=task, skills=skills)

    def _sole_task(self, owner: str, agent_id: str) -> Task | None:
        """The agent's task when it has exactly one (SPEC §2: it is then the default)."""
        page = self._table.query(owner_pk(owner), sk_prefix=f"TASK#{agent_id}#", limit=2)
        return _model(Task, page.items[0]) if len(page.items) == 1 else None

    # ------------------------------------------------------------------------------------- privacy
    def iter_owned(self, user_id: str) -> Iterator[OwnedItem]:
        """The whole partition of the user: settings, agents, tasks, skills, export records, and whatever
        else is kept there (its kind is the sort key's first segment)."""
        for item in query_all(self._table, owner_pk(_owner(user_id))):
            yield OwnedItem(_kind(str(item[SK])), f"{item[PK]}|{item[SK]}", _content(item))

    def erase_owned(self, user_id: str) -> dict[str, int]:
        items = query_all(self._table, owner_pk(_owner(user_id)))
        self._table.delete_many([(str(i[PK]), str(i[SK])) for i in items])
        counts: dict[str, int] = {}
        for item in items:
            kind = _kind(str(item[SK]))
            counts[kind] = counts.get(kind, 0) + 1
        return counts

    # ------------------------------------------------------------------------------------- helpers
    def _list(self, cls: type[M], owner: str, prefix: str) -> list[M]:
        return [cls.model_validate_json(i["data"]) for i in query_all(self._table, owner_pk(owner), sk_prefix=prefix)]

    @staticmethod
    def _skills_by_key(items: Sequence[Item]) -> dict[Key, Skill]:
        return {(i[PK], i[SK]): Skill.model_validate_json(i["data"]) for i in items if str(i[SK]).startswith("SKILL#")}


def _kind(sk: str) -> str:
    return sk.split("#", 1)[0].lower()


def _content(item: Item) -> Any:
    data = item.get("data")
    if isinstance(data, str):
        try:
            return json.loads(data)
        except ValueError:
            pass
    return {k: v for k, v in item.items() if k not in (PK, SK)}
