"""The caller's own run: another user's run, like a missing one, is a 404 (SPEC §10)."""

from __future__ import annotations

from mneme.engine.deps import Deps
from mneme.errors import NotFound
from mneme.models.run import Run
from mneme.models.user import Caller


def own_run(deps: Deps, caller: Caller, run_id: str) -> Run:
    run = deps.runs.get_run(run_id)
    if run is None or run.user_id != caller.user_id:
        raise NotFound(f"no run {run_id!r}")
    return run
