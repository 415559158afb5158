"""ConfigStore over an ItemTable (main table): user settings, agents, tasks and skills.

Every user's configuration is one partition ``PK = OWNER#<user_id>``; the global (admin-created) agents,
tasks and skills — owner ``GLOBAL_OWNER`` in the models — are the partition ``PK = GLOBAL``, which no user
id maps to. Releases before issue 12 kept them under ``OWNER#__global__`` (a key a token with that ``sub``
could reach): they are still read there (the new partition wins for an id found in both), every write goes
to ``GLOBAL``, and a delete removes both copies. See docs/data-model.md (Migration).

=========================== ===============================
``SK``                      item
=========================== ===============================
``SETTINGS``                the user's settings
``AGENT#<agent_id>``        an agent
``TASK#<agent_id>#<task>``  a task of that agent (same owner as the agent)
``SKILL#<name>``            a skill
``REV#<one of these SKs>#…`` a revision of an agent, task or skill (``config_revisions``)
=========================== ===============================

The model is stored as JSON text in ``data`` (exact round trip); ids are copied to top-level attributes
for readability. See ``docs/data-model.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from mneme.adapters.dynamo.conditional_put import delete_checked, put_checked
from mneme.adapters.dynamo.config_codec import config_item as _item
from mneme.adapters.dynamo.config_codec import model_or_none as _model
from mneme.adapters.dynamo.config_codec import read_model as _read
from mneme.adapters.dynamo.config_keys import (
    agent_key,
    agent_key_of,
    first_visible,
    keys_everywhere,
    owner_partitions,
    owner_pk,
    settings_key,
    shown_instead,
    skill_key,
    skill_key_of,
    task_key,
    visibility_order,
)
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, Key, query_all
from mneme.adapters.dynamo.run_config_reads import RunConfigReads
from mneme.errors import InvalidInput
from mneme.models import Agent, Skill, Task, UserSettings
from mneme.models.common import GLOBAL_OWNER
from mneme.models.precondition import Precondition
from mneme.ports.common import OwnedItem

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mneme.models.config_revision import RevisionArgs

M = TypeVar("M", bound=BaseModel)


def own_then_global(own: list[M], shared: list[M], key: str) -> list[M]:
    """A listing: the caller's own items and the global ones they do not shadow (same id), sorted by id."""
    taken = {getattr(item, key) for item in own}
    return sorted(own + [item for item in shared if getattr(item, key) not in taken], key=lambda i: getattr(i, key))


def _owner(value: str) -> str:
    if not value:
        raise InvalidInput("the owner must be set (a user id or the global owner)", field="owner")
    return value


class ItemConfigStore(RunConfigReads):
    def __init__(self, table: ItemTable) -> None:
        self._table = table

    # ------------------------------------------------------------------------------------- settings
    def get_settings(self, user_id: str) -> UserSettings | None:
        return _model(UserSettings, self._table.get(*settings_key(user_id)))

    def put_settings(self, user_id: str, settings: UserSettings, *, precondition: Precondition | None = None) -> None:
        item = _item(settings_key(_owner(user_id)), settings, user_id=user_id)
        put_checked(self._table, item, precondition, read=partial(_read, UserSettings), default=UserSettings())

    # ------------------------------------------------------------------------------------- agents
    def get_agent(self, owner: str, agent_id: str) -> Agent | None:
        return _model(Agent, self._first(keys_everywhere(owner, agent_key(owner, agent_id))))

    def list_agents(self, owner: str) -> list[Agent]:
        return self._list(Agent, owner, "AGENT#", "agent_id")

    def put_agent(
        self, agent: Agent, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> None:
        key = agent_key(_owner(agent.owner), agent.agent_id)
        item = _item(key, agent, owner=agent.owner, agent_id=agent.agent_id, label=agent.label)
        shown = shown_instead(agent.owner, key, partial(agent_key_of, agent_id=agent.agent_id))
        put_checked(self._table, item, precondition, read=partial(_read, Agent), shown_instead=shown, **revision)

    def delete_agent(
        self,
        owner: str,
        agent_id: str,
        *,
        precondition: Precondition | None = None,
        **revision: Unpack[RevisionArgs],
    ) -> bool:
        """Delete the agent and, with it, its tasks (from every partition the owner is read from)."""
        keys = keys_everywhere(owner, agent_key(owner, agent_id))
        tasks = [t for pk, _ in keys for t in query_all(self._table, pk, sk_prefix=f"TASK#{agent_id}#")]
        if precondition is not None or revision.get("revision_at") is not None:
            read = partial(_read, Agent)
            return delete_checked(self._table, keys, precondition, read=read, along=tasks, **revision)
        self._table.delete_many([(t[PK], t[SK]) for t in tasks])
        return self._delete_everywhere(keys)

    # ------------------------------------------------------------------------------------- tasks
    def get_task(self, owner: str, agent_id: str, task_id: str) -> Task | None:
        return _model(Task, self._first(keys_everywhere(owner, task_key(owner, agent_id, task_id))))

    def list_tasks(self, owner: str, agent_id: str) -> list[Task]:
        return self._list(Task, owner, f"TASK#{agent_id}#", "task_id")

    def put_task(
        self, task: Task, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> None:
        key = task_key(_owner(task.owner), task.agent_id, task.task_id)
        item = _item(key, task, owner=task.owner, agent_id=task.agent_id, task_id=task.task_id)
        shown = [k for k in keys_everywhere(task.owner, key) if k != key]  # a global task in the legacy partition
        put_checked(self._table, item, precondition, read=partial(_read, Task), shown_instead=shown, **revision)

    def delete_task(
        self,
        owner: str,
        agent_id: str,
        task_id: str,
        *,
        precondition: Precondition | None = None,
        **revision: Unpack[RevisionArgs],
    ) -> bool:
        keys = keys_everywhere(owner, task_key(owner, agent_id, task_id))
        return self._delete_everywhere(keys, Task, precondition=precondition, **revision)

    # ------------------------------------------------------------------------------------- skills
    def get_skills(self, owner: str, names: Sequence[str]) -> list[Skill]:
        """The named skills of one owner that exist, in the order of ``names``."""
        keys = {name: keys_everywhere(owner, skill_key(owner, name)) for name in dict.fromkeys(names)}
        found = self._skills_by_key(self._table.batch_get([key for each in keys.values() for key in each]))
        skills = (first_visible(each, found.get) for each in keys.values())
        return [skill for skill in skills if skill is not None]

    def list_skills(self, owner: str) -> list[Skill]:
        return self._list(Skill, owner, "SKILL#", "name")

    def put_skill(
        self, skill: Skill, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> None:
        key = skill_key(_owner(skill.owner), skill.name)
        item = _item(key, skill, owner=skill.owner, name=skill.name)
        shown = shown_instead(skill.owner, key, partial(skill_key_of, name=skill.name))
        put_checked(self._table, item, precondition, read=partial(_read, Skill), shown_instead=shown, **revision)

    def delete_skill(
        self, owner: str, name: str, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> bool:
        keys = keys_everywhere(owner, skill_key(owner, name))
        return self._delete_everywhere(keys, Skill, precondition=precondition, **revision)

    # ------------------------------------------------------------------------------------- visibility
    def find_agent(self, user_id: str, agent_id: str) -> Agent | None:
        """One read (a BatchGetItem of the own and the global keys), the own agent winning."""
        keys = [key for o in visibility_order(user_id) for key in keys_everywhere(o, agent_key(o, agent_id))]
        items = {(i[PK], i[SK]): i for i in self._table.batch_get(keys)}
        return _model(Agent, first_visible(keys, items.get))

    def visible_agents(self, user_id: str) -> list[Agent]:
        return own_then_global(self.list_agents(user_id), self.list_agents(GLOBAL_OWNER), "agent_id")

    def find_skill(self, user_id: str, name: str) -> Skill | None:
        found = self.get_skills(user_id, [name]) or self.get_skills(GLOBAL_OWNER, [name])
        return found[0] if found else None

    def visible_skills(self, user_id: str) -> list[Skill]:
        return own_then_global(self.list_skills(user_id), self.list_skills(GLOBAL_OWNER), "name")

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
    def _first(self, keys: Sequence[Key]) -> Item | None:
        """The item of the first key that has one (one read per partition, stopping at the first hit)."""
        return first_visible(keys, lambda key: self._table.get(*key))

    def _delete_everywhere(
        self,
        keys: Sequence[Key],
        cls: type[BaseModel] = BaseModel,
        *,
        precondition: Precondition | None = None,
        **revision: Unpack[RevisionArgs],
    ) -> bool:
        """Delete an item's copies in every partition; with a precondition, only the item as it was read; with
        ``revision_at``, with the revision of the delete."""
        if precondition is not None or revision.get("revision_at") is not None:
            return delete_checked(self._table, keys, precondition, read=partial(_read, cls), **revision)
        deleted = False
        for key in keys:
            deleted = self._table.delete(*key) or deleted
        return deleted

    def _list(self, cls: type[M], owner: str, prefix: str, id_field: str) -> list[M]:
        """An owner's items of one kind, by id (from the first partition that has the id)."""
        seen: dict[str, M] = {}
        for pk in owner_partitions(owner):
            for item in query_all(self._table, pk, sk_prefix=prefix):
                model = _read(cls, item)
                seen.setdefault(str(getattr(model, id_field)), model)
        return [seen[key] for key in sorted(seen)]


def _kind(sk: str) -> str:
    return sk.split("#", 1)[0].lower()


def _content(item: Item) -> Any:
    """An owned item as exported: its model's JSON (a revision's with its ``change`` and, when kept, ``by``), else
    its attributes."""
    data = item.get("data")
    if isinstance(data, str):
        try:
            parsed = json.loads(data)
        except ValueError:
            pass
        else:
            if "change" not in item:
                return parsed
            return {"change": item["change"], "item": parsed, **({"by": item["by"]} if item.get("by") else {})}
    return {k: v for k, v in item.items() if k not in (PK, SK)}
