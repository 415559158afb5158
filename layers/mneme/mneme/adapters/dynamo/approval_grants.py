"""Remembered approvals over the main table (issue 15.6): a person's ``always`` for (user, agent, tool).

They live in the user's configuration partition, one item each, so a run loads an agent's grants with one
Query and ``GET /v1/me/approvals`` lists them with another:

=========================== =================================================== =============================
``PK``                      ``SK``                                              item
=========================== =================================================== =============================
``OWNER#<user_id>``         ``APPROVAL#<agent_id>#<tool>``                      ``approval_id``, ``data`` JSON
=========================== =================================================== =============================

The id is derived from (agent, tool): remembering the same pair again refreshes it, and ``DELETE
/v1/me/approvals/{id}`` finds it without a lookup table (the id names the pair; an id that is not of this
form is simply not found).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from mneme.adapters.dynamo.config_keys import owner_pk
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, query_all
from mneme.ports.runs import RememberedApproval

PREFIX = "APPROVAL#"


def approval_id(agent_id: str, tool: str) -> str:
    """The stable, URL-safe id of the grant for (agent, tool)."""
    return "apr-" + hashlib.sha256(f"{agent_id}\x00{tool}".encode()).hexdigest()[:20]


def _grant(item: Item) -> RememberedApproval:
    data = json.loads(str(item["data"]))
    return RememberedApproval(
        approval_id=str(data["approval_id"]),
        user_id=str(data["user_id"]),
        agent_id=str(data["agent_id"]),
        tool=str(data["tool"]),
        created_at=datetime.fromisoformat(str(data["created_at"])),
        run_id=data.get("run_id"),
        agent_owner=data.get("agent_owner"),
    )


class ItemApprovalGrants:
    def __init__(self, table: ItemTable) -> None:
        self._table = table

    def remember(
        self, user_id: str, agent_id: str, tool: str, *, agent_owner: str, run_id: str | None, at: datetime
    ) -> RememberedApproval:
        grant = RememberedApproval(approval_id(agent_id, tool), user_id, agent_id, tool, at, run_id, agent_owner)
        data = {
            "approval_id": grant.approval_id,
            "user_id": grant.user_id,
            "agent_id": grant.agent_id,
            "tool": grant.tool,
            "created_at": grant.created_at.isoformat(),
            "run_id": grant.run_id,
            "agent_owner": grant.agent_owner,
        }
        self._table.put(
            {
                PK: owner_pk(grant.user_id),
                SK: f"{PREFIX}{grant.agent_id}#{grant.tool}",
                "approval_id": grant.approval_id,
                "data": json.dumps(data),
            }
        )
        return grant

    def list(self, user_id: str) -> list[RememberedApproval]:
        return [_grant(item) for item in query_all(self._table, owner_pk(user_id), sk_prefix=PREFIX)]

    def tools_for(self, user_id: str, agent_id: str, agent_owner: str) -> frozenset[str]:
        items = query_all(self._table, owner_pk(user_id), sk_prefix=f"{PREFIX}{agent_id}#")
        return frozenset(grant.tool for grant in map(_grant, items) if grant.holds_for(agent_owner))

    def revoke(self, user_id: str, approval_id: str) -> RememberedApproval | None:
        grant = next((g for g in self.list(user_id) if g.approval_id == approval_id), None)
        if grant is None:
            return None
        self._table.delete(owner_pk(grant.user_id), f"{PREFIX}{grant.agent_id}#{grant.tool}")
        return grant
