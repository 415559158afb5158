"""Restart recovery of the local embedded mode: runs an earlier server left in flight.

moto keeps nothing across restarts, so in-flight executions are lost. On start, every root run found
``queued`` / ``running`` / ``waiting_approval`` is resumed by a new execution of the machine (moto is fresh,
so the execution name derived from the run id is free: ``ExecutionAlreadyExists`` cannot happen). The step
resumes from the run's last checkpoint: unfinished children it still waits for are started again by the Map
state, a pending approval gets a new task token. An unfinished child run that no unfinished parent waits for
is marked ``failed`` ("interrupted"). Memory-write messages still in the queue are written before shutdown
(a last drain, :meth:`LocalMneme.close`). A partial export archive a crash left is removed, and every export
or erasure a crash left unfinished is run again (:mod:`mneme.engine.privacy.resume`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from mneme.engine.privacy.resume import resume_open_jobs
from mneme_local.file_exports import LocalFileExports

if TYPE_CHECKING:
    from mneme.engine.deps import Deps
    from mneme_local.stack import LocalMneme


def report_recovery(stack: LocalMneme) -> None:
    """One log line saying what the last server left unfinished and what became of it (nothing: no line)."""
    if stack.resumed or stack.interrupted or stack.requeued or stack.privacy_resumed:
        logging.getLogger("mneme_local.server").info(
            "left unfinished by the last server: %d runs resumed, %d marked failed, %d memory writes "
            "requeued, %d exports/erasures run again",
            len(stack.resumed),
            len(stack.interrupted),
            stack.requeued,
            len(stack.privacy_resumed),
        )


def recover(stack: LocalMneme) -> None:
    """Resume the root runs an earlier server left unfinished; fail the orphaned children (see module doc)."""
    deps = stack.deps
    if isinstance(deps.exports, LocalFileExports):  # an export a crash interrupted: never leave its partial file
        deps.exports.discard_partials()
    stack.privacy_resumed = resume_open_jobs(deps, idle_seconds=0)  # nothing runs them now: all of them
    unfinished = {run.run_id: run for run in deps.runs.list_unfinished()}
    alive: dict[str, bool] = {}

    def is_alive(run_id: str, seen: frozenset[str] = frozenset()) -> bool:
        """A root is resumed; a child lives on when its parent lives on and still waits for it."""
        if run_id not in alive:
            parent = unfinished[run_id].parent_run_id
            alive[run_id] = not parent or (
                parent in unfinished
                and parent not in seen
                and is_alive(parent, seen | {run_id})
                and _waits_for(deps, parent, run_id)
            )
        return alive[run_id]

    for run_id, run in unfinished.items():
        if not is_alive(run_id):
            stack.runtime.handle(
                {
                    "action": "fail",
                    "run_id": run_id,
                    "error": {"Error": "Interrupted", "Cause": "the local server stopped while this run was in flight"},
                }
            )
            stack.interrupted.append(run_id)
        elif not run.parent_run_id:
            deps.orchestrator.start(run_id, depth=run.depth)
            stack.resumed.append(run_id)


def _waits_for(deps: Deps, parent_run_id: str, child_run_id: str) -> bool:
    from mneme.engine.runs.state import load_state

    checkpoint = deps.runs.load_checkpoint(parent_run_id)
    return checkpoint is not None and child_run_id in load_state(checkpoint).waiting_children
