"""The caller's own audit records (SPEC §9): ``GET /v1/audit``, newest first, filtered and paged."""

from __future__ import annotations

from mneme.engine.deps import Deps
from mneme.errors import NotFound
from mneme.models.privacy import ChainReport
from mneme.models.user import Caller
from mneme.ports.audit import AuditPage


def list_audit(
    deps: Deps,
    caller: Caller,
    *,
    run_id: str | None = None,
    namespace: str | None = None,
    action: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> AuditPage:
    """Filtering by a run that is not the caller's is a 404, as for the run itself (a run of another user,
    or one that never existed and left the caller no records)."""
    page = deps.audit.query(
        caller.user_id, run_id=run_id, namespace=namespace, action=action, limit=limit, cursor=cursor
    )
    if run_id and not cursor and not page.records:
        run = deps.runs.get_run(run_id)
        if run is None or run.user_id != caller.user_id:
            raise NotFound(f"no run {run_id!r}", field="run_id")
    return page


def verify_audit(deps: Deps, caller: Caller) -> ChainReport:
    """``GET /v1/audit/verify``: the caller's own chain, from its first record to its head."""
    return deps.audit.verify(caller.user_id)
