"""Who changed an agent, task or skill: each save and delete through the API is kept as a revision naming the
caller (``by``), and recorded in the caller's audit trail as a ``config`` record, detail ``{change: saved |
deleted, resource: agent | task | skill, id, global}`` and, for a save, ``etag`` (its revision's: the exact
version), the record's ``agent_id`` / ``task_id`` set — so admins sharing the global resources tell each other's
changes apart, and a user finds their configuration changes in ``GET /v1/audit`` next to their memory's. An action
of its own, not SPEC §9's ``write`` / ``delete``: those are a memory namespace's (``?action=write`` lists what was
written to memory, as a client of SPEC §9 expects, not an agent saved before it).

The record is written right after the change: when it cannot be, the request answers 503 ``audit_unavailable``
(the change is kept, with its revision naming the caller) — never a change reported done without its record."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Literal

from mneme.engine.audit import AuditScope, AuditTrail
from mneme.engine.deps import Deps
from mneme.models.agent import Agent, Skill, Task
from mneme.models.common import GLOBAL_OWNER
from mneme.models.config_revision import ConfigKind, RevisionArgs
from mneme.models.precondition import etag_of
from mneme.models.user import Caller


def stamp(deps: Deps, caller: Caller) -> RevisionArgs:
    """The revision a save or delete by ``caller`` keeps: now, by them."""
    return {"revision_at": deps.clock.now(), "revision_by": caller.user_id}


def deleted_from(caller: Caller, delete: Callable[[str], bool]) -> str | None:
    """The owner whose resource ``delete`` removed: the caller's own, else (an admin's delete) the global one."""
    if delete(caller.user_id):
        return caller.user_id
    if caller.is_admin and delete(GLOBAL_OWNER):
        return GLOBAL_OWNER
    return None


def record_save(deps: Deps, caller: Caller, revision: RevisionArgs, item: Agent | Task | Skill) -> None:
    """The audit record of a save by ``caller`` of ``item`` (as stored)."""
    kind: ConfigKind = "agent" if isinstance(item, Agent) else "task" if isinstance(item, Task) else "skill"
    name = item.agent_id if isinstance(item, Agent) else item.task_id if isinstance(item, Task) else item.name
    task_id = item.task_id if isinstance(item, Task) else None
    agent_id = None if isinstance(item, Skill) else item.agent_id
    etag = etag_of(item)  # what its GET answers and its revision shows
    _record(
        deps, caller, revision, "saved", kind, name, owner=item.owner, agent_id=agent_id, task_id=task_id, etag=etag
    )


def record_delete(
    deps: Deps,
    caller: Caller,
    revision: RevisionArgs,
    kind: ConfigKind,
    name: str,
    *,
    owner: str,
    agent_id: str | None = None,
) -> None:
    """The audit record of a delete by ``caller`` of the ``owner``'s resource."""
    task_id = name if kind == "task" else None
    _record(deps, caller, revision, "deleted", kind, name, owner=owner, agent_id=agent_id, task_id=task_id)


def _record(
    deps: Deps,
    caller: Caller,
    revision: RevisionArgs,
    change: Literal["saved", "deleted"],
    kind: ConfigKind,
    name: str,
    *,
    owner: str,
    agent_id: str | None,
    task_id: str | None,
    etag: str | None = None,
) -> None:
    scope = AuditScope(caller.user_id, agent_id=agent_id, task_id=task_id)
    trail = AuditTrail(scope, key=f"config#{uuid.uuid4().hex}", clock=deps.clock, at=revision.get("revision_at"))
    detail = {"change": change, "resource": kind, "id": name, "global": owner == GLOBAL_OWNER}
    trail.write(deps.audit, "config", [None], **detail, **({"etag": etag} if etag else {}))
