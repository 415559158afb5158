"""Remembered approvals (issue 15.6): a person's ``always`` holds for (user, agent, tool) across runs until
revoked; remembering, every use and every revocation are audited.

A run in ``prompt`` mode asks a person only for tools neither approved ``always`` in this run nor
remembered for its agent; the grants are read at most once per step, and only when a call would wait.
"""

from __future__ import annotations

from typing import Any

from mneme.engine.audit import AuditScope, AuditTrail
from mneme.engine.deps import Deps
from mneme.engine.runs.session import RunSession
from mneme.errors import AuditWriteFailed, NotFound
from mneme.models.chat import ToolCallMessage
from mneme.models.run import Run
from mneme.models.user import Caller


def allowed(session: RunSession, call: ToolCallMessage) -> bool:
    """Whether a tool call of a ``prompt`` run goes ahead without asking (always in this run, or remembered)."""
    if call.tool in session.state.always_allowed:
        return True
    run = session.run
    owner = session.config.agent.owner or run.user_id  # as the grant was remembered (approvals._agent_owner)
    remembered = session.context.remembered.get(lambda: session.deps.grants.tools_for(run.user_id, run.agent_id, owner))
    if call.tool not in remembered:
        return False
    try:
        session.recorder.audit(
            "approval", [None], call_id=call.call_id, tool=call.tool, decision="always", remembered=True
        )
    except AuditWriteFailed:
        session.recorder.warning("the audit record of a remembered approval could not be written", tool=call.tool)
    return True


def remember(deps: Deps, run: Run, agent_owner: str, tool: str, trail: AuditTrail) -> None:
    """The owner answered ``always``: keep it for (user, agent, tool) across runs, and audit that. It holds for
    the agent the run runs (``agent_owner``: the user's own or the global one), not for another owner's agent of
    that id — a global agent found once the user's own is deleted, or the user's own saved over a global one."""
    grant = deps.grants.remember(
        run.user_id, run.agent_id, tool, agent_owner=agent_owner, run_id=run.run_id, at=deps.clock.now()
    )
    trail.write(
        deps.audit, "approval", [None], tool=tool, decision="always", remembered=True, approval_id=grant.approval_id
    )


def list_remembered(deps: Deps, caller: Caller) -> dict[str, Any]:
    """``{approvals: [...]}``: the caller's remembered approvals."""
    grants = sorted(deps.grants.list(caller.user_id), key=lambda g: (g.agent_id, g.tool))
    return {"approvals": [grant.to_api() for grant in grants]}


def revoke(deps: Deps, caller: Caller, approval_id: str) -> None:
    """Forget one of the caller's remembered approvals (404 when there is none); audited."""
    grant = deps.grants.revoke(caller.user_id, approval_id)
    if grant is None:
        raise NotFound(f"no remembered approval {approval_id!r}", field="approval_id")
    scope = AuditScope(caller.user_id, agent_id=grant.agent_id)
    trail = AuditTrail(scope, key=f"revoke#{approval_id}", clock=deps.clock)
    trail.write(deps.audit, "approval", [None], tool=grant.tool, decision="revoked", approval_id=approval_id)
