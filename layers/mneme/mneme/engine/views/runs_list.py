"""The caller's runs (issue 33.3): ``GET /v1/runs`` lists root runs, newest first, each with its tree's status
and total cost, filtered and paged. Only the caller's own runs are ever read: the store's index partition is
the caller's (``RUNS#<user_id>``) and a cursor of another user's partition is refused."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mneme.engine.deps import Deps
from mneme.errors import InvalidInput
from mneme.models.run import Run
from mneme.models.user import Caller
from mneme.ports.runs import RunFilter

#: what a listed run shows of its input and its error (the run itself has them whole)
PREVIEW_CHARS = 200


def _utc(at: datetime | None) -> datetime | None:
    """A time without an offset is UTC."""
    return at.replace(tzinfo=UTC) if at is not None and at.tzinfo is None else at


def list_runs(deps: Deps, caller: Caller, wanted: RunFilter) -> dict[str, Any]:
    """``{runs, cursor}``: one page of the caller's root runs; ``cursor`` is null on the last page."""
    since, until = _utc(wanted.since), _utc(wanted.until)
    if since is not None and until is not None and since > until:
        raise InvalidInput("since must not be later than until", field="since")
    page = deps.runs.list_runs(
        caller.user_id,
        RunFilter(
            status=wanted.status,
            agent_id=wanted.agent_id,
            chat_id=wanted.chat_id,
            since=since,
            until=until,
            limit=wanted.limit,
            cursor=wanted.cursor,
        ),
    )
    return {"runs": [run_summary(run) for run in page.runs], "cursor": page.cursor}


def _preview(text: str | None) -> str | None:
    if text is None or len(text) <= PREVIEW_CHARS:
        return text
    return text[: PREVIEW_CHARS - 1] + "…"


def run_summary(run: Run) -> dict[str, Any]:
    """A root run as listed: the tree's status (a root ends after every run below it) and the tree's usage
    and cost (``tree_usage`` adds each finished sub-run's)."""
    return {
        "run_id": run.run_id,
        "status": run.status.value,
        "agent_id": run.agent_id,
        "task_id": run.task_id,
        "chat_id": run.chat_id,
        "project_id": run.project_id,
        "input": _preview(run.input),
        "error": _preview(run.error),
        "created_at": run.created_at.isoformat(),
        "updated_at": run.updated_at.isoformat(),
        "children": len(run.children),
        "model_calls": run.model_calls,
        "tree_usage": run.tree_usage.model_dump(),
        "cost_usd": run.tree_usage.cost_usd,
    }
