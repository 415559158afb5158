"""Revisions of agents, tasks and skills: each save and each delete made through the API, with the resource as
it was after it (a delete: as it was), newest first. A client restores one by saving it again."""

from datetime import datetime
from typing import Literal

from mneme.models.agent import Agent, Skill, Task
from mneme.records import Record

ConfigKind = Literal["agent", "task", "skill"]
ConfigChange = Literal["saved", "deleted"]


class ConfigRef(Record):
    """Which resource: an agent (``name`` its id), a task (``name`` its id, ``agent_id`` its agent's) or a skill."""

    kind: ConfigKind
    name: str
    agent_id: str | None = None


class ConfigRevision(Record):
    at: datetime
    change: ConfigChange
    etag: str  # the resource's entity tag as it was (its GET's then)
    item: Agent | Task | Skill
    tasks: list[str] | None = None  # a deleted agent's: the tasks deleted with it (each has its own revision)


class ConfigRevisionPage(Record):
    revisions: list[ConfigRevision]
    cursor: str | None  # the next (older) page's, None on the last
