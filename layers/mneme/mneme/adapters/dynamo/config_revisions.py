"""Revisions of agents, tasks and skills in the owner's configuration partition (see docs/data-model.md).

``SK = REV#<the item's SK>#<UTC time, microseconds>#<8 hex>``: one query lists a resource's history newest first,
and the partition an erasure removes holds it. A revision is written in one transaction with the save or delete
it records, so neither is ever kept without the other. The item's JSON is kept as it was stored, with ``by``,
the user whose save or delete made it. An erasure replaces an erased admin's id in the global revisions
(:meth:`ItemConfigRevisions.reattribute`); a user's own revisions go with their partition.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from mneme.adapters.dynamo.config_codec import read_model
from mneme.adapters.dynamo.config_keys import agent_key, owner_partitions, owner_pk, skill_key, task_key
from mneme.adapters.dynamo.cursors import decode_cursor, encode_cursor
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, Key, Put, query_all
from mneme.models.agent import Agent, Skill, Task
from mneme.models.common import GLOBAL_OWNER
from mneme.models.config_revision import ConfigChange, ConfigRef, ConfigRevision, ConfigRevisionPage
from mneme.models.precondition import etag_of_json

REV = "REV#"
_MODELS: dict[str, type[Agent | Task | Skill]] = {"agent": Agent, "task": Task, "skill": Skill}


def revision_put(
    key: Key, data: str, change: ConfigChange, at: datetime, *, by: str | None = None, tasks: Sequence[str] = ()
) -> Put:
    """The revision of the item stored under ``key`` (its JSON ``data``) made at ``at`` by the user ``by``;
    ``tasks``: the ids of the tasks a deleted agent took with it (each has a revision of its own)."""
    moment = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")  # fixed width: the sort key orders by time
    item = {PK: key[0], SK: f"{REV}{key[1]}#{moment}#{secrets.token_hex(4)}", "change": change, "data": data}
    if by is not None:
        item["by"] = by
    return Put({**item, "tasks": json.dumps(list(tasks))} if tasks else item)


def resource_key(owner: str, ref: ConfigRef) -> Key:
    if ref.kind == "agent":
        return agent_key(owner, ref.name)
    if ref.kind == "task":
        return task_key(owner, ref.agent_id or "", ref.name)
    return skill_key(owner, ref.name)


class ItemConfigRevisions:
    def __init__(self, table: ItemTable) -> None:
        self._table = table

    def history(self, owner: str, ref: ConfigRef, *, limit: int, cursor: str | None) -> ConfigRevisionPage:
        """The resource's revisions, newest first, a page at a time (``cursor``: the previous page's)."""
        pk, prefix = owner_pk(owner), f"{REV}{resource_key(owner, ref)[1]}#"
        start = None
        if cursor is not None:
            start = decode_cursor(cursor, (PK, SK), lambda key: key[PK] == pk and key[SK].startswith(prefix))
        page = self._table.query(pk, sk_prefix=prefix, forward=False, limit=limit, start_key=start)
        revisions = [_revision(item, _MODELS[ref.kind]) for item in page.items]
        return ConfigRevisionPage(revisions, encode_cursor(page.last_key) if page.last_key else None)

    def reattribute(self, user_id: str, to: str) -> int:
        """Name ``to`` instead of ``user_id`` in every revision of a global agent, task or skill; how many."""
        found = [self._global_revisions_by(pk, user_id) for pk in owner_partitions(GLOBAL_OWNER)]
        for item in (item for items in found for item in items):
            self._table.put({**item, "by": to})
        return sum(len(items) for items in found)

    def authored(self, user_id: str) -> int:
        """How many revisions of global agents, tasks and skills name ``user_id``."""
        return sum(len(self._global_revisions_by(pk, user_id)) for pk in owner_partitions(GLOBAL_OWNER))

    def _global_revisions_by(self, pk: str, user_id: str) -> list[Item]:
        return [item for item in query_all(self._table, pk, sk_prefix=REV) if item.get("by") == user_id]


def _revision(item: Item, model: type[Agent | Task | Skill]) -> ConfigRevision:
    moment = str(item[SK]).rsplit("#", 2)[1]
    data = str(item["data"])
    return ConfigRevision(
        at=datetime.strptime(moment, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC),
        change=item["change"],
        etag=etag_of_json(data),
        item=read_model(model, item),
        tasks=json.loads(str(item["tasks"])) if item.get("tasks") else None,
        by=str(item["by"]) if item.get("by") else None,
    )
