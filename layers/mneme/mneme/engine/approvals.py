"""Tool approval (SPEC §7): the state machine's callback token, the owner's decisions, and run failure."""

from __future__ import annotations

from typing import Any, Literal

from mneme.engine.deps import Deps
from mneme.engine.recorder import Recorder
from mneme.engine.state import LoopState
from mneme.errors import AuditWriteFailed, Conflict, NotFound
from mneme.models.run import Run, RunStatus
from mneme.models.user import Caller

Decision = Literal["once", "always", "deny"]


def _load(deps: Deps, run_id: str) -> tuple[Run, LoopState]:
    run = deps.runs.get_run(run_id)
    raw = deps.runs.load_checkpoint(run_id) if run is not None else None
    if run is None or raw is None:
        raise NotFound(f"no run {run_id!r}")
    return run, LoopState.model_validate(raw)


def _all_decided(state: LoopState) -> bool:
    return all(p.decision is not None for p in state.pending if p.kind == "approval")


def store_task_token(deps: Deps, run_id: str, task_token: str) -> dict[str, Any]:
    """The state machine waits for a person: keep its token; resume at once if everything is decided."""
    run, state = _load(deps, run_id)
    state.task_token = task_token
    deps.runs.save_checkpoint(run_id, state.model_dump(mode="json"))
    if _all_decided(state) or run.status.finished:
        deps.orchestrator.resume(task_token, {"run_id": run_id})
    return {"run_id": run_id, "status": run.status.value}


def decide(deps: Deps, caller: Caller, run_id: str, call_id: str, decision: Decision) -> dict[str, Any]:
    """The run's owner answers one pending call; another user's run is a 404."""
    run = deps.runs.get_run(run_id)
    if run is None or run.user_id != caller.user_id:
        raise NotFound(f"no run {run_id!r}")
    run, state = _load(deps, run_id)
    if run.status is not RunStatus.WAITING_APPROVAL:
        raise Conflict(f"run {run_id!r} is {run.status.value}, not waiting for an approval")
    pending = next((p for p in state.pending if p.kind == "approval" and p.call_id == call_id), None)
    if pending is None:
        raise NotFound(f"no pending tool call {call_id!r} on run {run_id!r}", field="call_id")
    if pending.decision is not None:
        raise Conflict(f"tool call {call_id!r} was already answered ({pending.decision})", field="call_id")
    pending.decision = decision
    if decision == "always":  # not asked again in this run: settle the other pending calls of that tool
        for other in state.pending:
            if other.kind == "approval" and other.tool == pending.tool and other.decision is None:
                other.decision = "once"
    recorder = Recorder(deps, run, state)
    try:
        recorder.audit("approval", [None], call_id=call_id, tool=pending.tool, decision=decision)
    except AuditWriteFailed as exc:
        raise AuditWriteFailed("the approval could not be audited; answer again") from exc
    deps.runs.save_checkpoint(run_id, state.model_dump(mode="json"))
    recorder.flush()
    remaining = [p.call_id for p in state.pending if p.kind == "approval" and p.decision is None]
    if not remaining and state.task_token:
        deps.orchestrator.resume(state.task_token, {"run_id": run_id})
    return {
        "run_id": run_id,
        "status": run.status.value,
        "call_id": call_id,
        "decision": decision,
        "pending": remaining,
    }


def mark_failed(deps: Deps, run_id: str, error: Any) -> dict[str, Any]:
    """The state machine's Catch: the run ends failed with the reason (idempotent)."""
    run = deps.runs.get_run(run_id)
    if run is None:
        raise NotFound(f"no run {run_id!r}")
    if not run.status.finished:
        state = LoopState.model_validate(deps.runs.load_checkpoint(run_id) or {"user_text": run.input})
        recorder = Recorder(deps, run, state)
        reason = _reason(error)
        run.status, run.error, run.updated_at = RunStatus.FAILED, reason, deps.clock.now()
        recorder.event("error", message=reason)
        recorder.event(
            "completed",
            status=run.status.value,
            usage=run.usage.model_dump(),
            tree_usage=run.tree_usage.model_dump(),
        )
        run = deps.runs.update_run(run)
        deps.runs.save_checkpoint(run_id, state.model_dump(mode="json"))
        recorder.flush()
    return {"run_id": run_id, "status": run.status.value}


def _reason(error: Any) -> str:
    if isinstance(error, dict):
        name, cause = error.get("Error", "Error"), error.get("Cause", "")
        try:
            import json

            parsed = json.loads(cause) if isinstance(cause, str) and cause.startswith("{") else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("errorMessage"):
            return f"{parsed.get('errorType', name)}: {parsed['errorMessage']}"
        return f"{name}: {cause}" if cause else str(name)
    return str(error or "the run failed")
