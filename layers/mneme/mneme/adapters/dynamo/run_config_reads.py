"""The configuration a run needs, read in as few round trips as the table allows (``ConfigStore.load_run_config``):
a part of :class:`mneme.adapters.dynamo.config_store.ItemConfigStore`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from mneme.adapters.dynamo.config_codec import model_or_none as _model
from mneme.adapters.dynamo.config_codec import read_model as _read
from mneme.adapters.dynamo.config_keys import (
    agent_key,
    everywhere,
    first_visible,
    keys_everywhere,
    owner_partitions,
    settings_key,
    skill_key_of,
    task_key,
    visibility_order,
)
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, Key
from mneme.errors import NotFound
from mneme.models import Agent, Skill, Task, UserSettings
from mneme.ports.stores import RunConfig


class RunConfigReads:
    _table: ItemTable

    def load_run_config(
        self, user_id: str, agent_id: str, task_id: str | None, *, default_task: bool = True
    ) -> RunConfig:
        """Round trip 1 (one BatchGetItem): settings, the own and the global agent, and — when named —
        the task under both owners. Round trip 2 (only when needed): the agent's skills (agent owner
        first, then global) and its default task. An agent that names no default task and is run without
        one uses its only task, when it has exactly one (one query, only then). Nothing else is read."""
        settings, agent, task = self._first_round(user_id, agent_id, task_id)
        owner = agent.owner or user_id
        default_id = agent.default_task_id if default_task and task_id is None else None
        skills, default = self._second_round(owner, agent_id, agent.skills, default_id)
        if task_id is None:
            task = default if default_id else self._sole_task(owner, agent_id) if default_task else None
        return RunConfig(settings=settings, agent=agent, task=task, skills=skills)

    def _first_round(self, user_id: str, agent_id: str, task_id: str | None) -> tuple[UserSettings, Agent, Task | None]:
        """Settings, the agent (own, then global) and the named task, in one BatchGetItem."""
        owners = visibility_order(user_id)
        agent_keys = everywhere(owners, lambda o: agent_key(o, agent_id))
        task_keys = everywhere(owners, lambda o: task_key(o, agent_id, task_id)) if task_id is not None else []
        items = {(i[PK], i[SK]): i for i in self._table.batch_get([settings_key(user_id), *agent_keys, *task_keys])}
        agent = _model(Agent, first_visible(agent_keys, items.get))
        if agent is None:
            raise NotFound(f"agent {agent_id!r} not found", field="agent_id")
        settings = _model(UserSettings, items.get(settings_key(user_id))) or UserSettings()
        return (
            settings,
            agent,
            None if task_id is None else _named_task(items, agent.owner or user_id, agent_id, task_id),
        )

    def _second_round(
        self, owner: str, agent_id: str, names: Sequence[str], default_id: str | None
    ) -> tuple[dict[str, Skill], Task | None]:
        """The agent's skills (its owner first, then global) and its default task, in one BatchGetItem."""
        skill_owners = visibility_order(owner)
        skill_keys = {name: everywhere(skill_owners, partial(skill_key_of, name=name)) for name in names}
        default_keys = keys_everywhere(owner, task_key(owner, agent_id, default_id)) if default_id else []
        second = [key for keys in skill_keys.values() for key in keys] + default_keys
        found = self._table.batch_get(second) if second else []
        by_key = self._skills_by_key(found)
        skills: dict[str, Skill] = {}
        for name, keys in skill_keys.items():
            skill = first_visible(keys, by_key.get)
            if skill is not None:
                skills.setdefault(name, skill)
        items = {(i[PK], i[SK]): i for i in found}
        return skills, _model(Task, first_visible(default_keys, items.get)) if default_keys else None

    def _sole_task(self, owner: str, agent_id: str) -> Task | None:
        """The agent's task when it has exactly one (SPEC §2: it is then the default)."""
        for pk in owner_partitions(owner):
            page = self._table.query(pk, sk_prefix=f"TASK#{agent_id}#", limit=2)
            if page.items:
                return _model(Task, page.items[0]) if len(page.items) == 1 else None
        return None

    @staticmethod
    def _skills_by_key(items: Sequence[Item]) -> dict[Key, Skill]:
        return {(i[PK], i[SK]): _read(Skill, i) for i in items if str(i[SK]).startswith("SKILL#")}


def _named_task(items: Mapping[Key, Item], owner: str, agent_id: str, task_id: str) -> Task:
    task = _model(Task, first_visible(keys_everywhere(owner, task_key(owner, agent_id, task_id)), items.get))
    if task is None:
        raise NotFound(f"task {task_id!r} of agent {agent_id!r} not found", field="task_id")
    return task
