"""Reading runs (SPEC §10): the run, its events, its recorded model requests and its tree's audit trail —
only the caller's own; another user's run is a 404, as is one that does not exist."""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.errors import NotFound
from mneme.models.audit import AuditRecord
from mneme.models.run import Run, RunEvent
from mneme.models.user import Caller


def own_run(deps: Deps, caller: Caller, run_id: str) -> Run:
    run = deps.runs.get_run(run_id)
    if run is None or run.user_id != caller.user_id:
        raise NotFound(f"no run {run_id!r}")
    return run


def run_events(deps: Deps, caller: Caller, run_id: str) -> list[RunEvent]:
    own_run(deps, caller, run_id)
    return deps.runs.list_events(run_id)


def run_requests(deps: Deps, caller: Caller, run_id: str) -> list[dict[str, Any]]:
    own_run(deps, caller, run_id)
    return deps.runs.list_requests(run_id)


def tree_audit(deps: Deps, caller: Caller, run_id: str) -> list[AuditRecord]:
    """Every audit record of the run's whole delegation tree (from its root), oldest first."""
    run = own_run(deps, caller, run_id)
    return [r for r in deps.audit.by_root_run(run.root_run_id) if r.user_id == caller.user_id]
