"""Reading runs (SPEC §10): the run, its events and recorded model requests (a page at a time, under
Lambda's response limit: engine/views/pages.py) and its tree's audit trail — only the caller's own; another
user's run is a 404, as is one that does not exist."""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.runs.owner import own_run
from mneme.engine.views.pages import ENVELOPE_BYTES, start_after, take_page
from mneme.models.audit import AuditRecord
from mneme.models.run import RunStatus
from mneme.models.user import Caller


def run_view(deps: Deps, caller: Caller, run_id: str) -> dict[str, Any]:
    """``GET /v1/runs/{id}``: the run, with its tree's budget and what the tree has used of it."""
    from mneme.engine.runs.approvals import unanswered
    from mneme.engine.runs.budget import budget_view

    run = own_run(deps, caller, run_id)
    view = {**run.to_api(), "budget": budget_view(deps, run)}
    if run.status is RunStatus.WAITING_APPROVAL:  # what the person is asked (SPEC §7)
        view["pending_approvals"] = unanswered(deps, run)
    return view


def run_events(
    deps: Deps, caller: Caller, run_id: str, *, limit: int, cursor: str | None = None, after: int | None = None
) -> dict[str, Any]:
    """``{events, cursor}``: the run's events after ``cursor`` (or ``after``, a ``seq``), in order."""
    own_run(deps, caller, run_id)
    entries = ((e.seq, e.to_api()) for e in deps.runs.iter_events(run_id, after=start_after(cursor, after)))
    events, next_cursor = take_page(entries, limit=limit, reserve=ENVELOPE_BYTES, what="event")
    return {"events": events, "cursor": next_cursor}


def run_context(deps: Deps, caller: Caller, run_id: str, *, limit: int, cursor: str | None = None) -> dict[str, Any]:
    """``{requests, cursor}``: the exact model requests of the run after ``cursor``, one per model call."""
    own_run(deps, caller, run_id)
    entries = deps.runs.iter_requests(run_id, after=start_after(cursor))
    requests, next_cursor = take_page(entries, limit=limit, reserve=ENVELOPE_BYTES, what="model request")
    return {"requests": requests, "cursor": next_cursor}


def tree_audit(deps: Deps, caller: Caller, run_id: str) -> list[AuditRecord]:
    """Every audit record of the run's whole delegation tree (from its root), oldest first."""
    run = own_run(deps, caller, run_id)
    return [r for r in deps.audit.by_root_run(run.root_run_id) if r.user_id == caller.user_id]
