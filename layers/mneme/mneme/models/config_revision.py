"""Revisions of agents, tasks and skills: each save and each delete made through the API, with the resource as
it was after it (a delete: as it was), newest first. A client restores one by saving it again."""

from datetime import datetime
from typing import Literal, TypedDict

from mneme.models.agent import Agent, Skill, Task
from mneme.records import Record

ConfigKind = Literal["agent", "task", "skill"]
ConfigChange = Literal["saved", "deleted"]


class RevisionArgs(TypedDict, total=False):
    """How a save or delete is kept as a revision: made at ``revision_at`` (none kept without it) by the user
    ``revision_by`` (the caller's id)."""

    revision_at: datetime | None
    revision_by: str | None


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
    #: who made the change (the caller's user id); None for a revision written before authors were kept, or when
    #: the reader may not see it (a user reading a global resource). An erased admin's id in a global revision
    #: is replaced by ``erased:<erasure id>`` (docs/privacy.md)
    by: str | None = None


class ConfigRevisionPage(Record):
    revisions: list[ConfigRevision]
    cursor: str | None  # the next (older) page's, None on the last
