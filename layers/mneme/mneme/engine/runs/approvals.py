"""Tool approval (SPEC §7): the state machine's callback token, the owner's decisions, and run failure.

The token (stored by the state machine's wait state) and each decision (sent by the run's owner) are
separate run-scoped marks, never a rewrite of the checkpoint: whichever of the two arrives last sees
the other and resumes the run, so an answer given while the token is being stored is never lost.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from mneme.engine.audit import AuditScope, AuditTrail
from mneme.engine.deps import Deps
from mneme.engine.runs import live, remembered
from mneme.engine.runs.recorder import Recorder
from mneme.engine.runs.state import LoopState, PendingCall, load_state
from mneme.errors import Conflict, NotFound
from mneme.models.run import Run, RunStatus
from mneme.models.user import Caller

Decision = Literal["once", "always", "deny"]
TOKEN_MARK = "token"
DECISION_MARK = "decision#"


def _load(deps: Deps, run_id: str) -> tuple[Run, LoopState]:
    run = deps.runs.get_run(run_id)
    raw = deps.runs.load_checkpoint(run_id) if run is not None else None
    if run is None or raw is None:
        raise NotFound(f"no run {run_id!r}")
    return run, load_state(raw)


def _approvals(state: LoopState) -> list[PendingCall]:
    return [p for p in state.pending if p.kind == "approval"]


def decisions(deps: Deps, run_id: str) -> dict[str, Decision]:
    """The owner's answers so far, by call id."""
    marks = deps.runs.list_marks(run_id, DECISION_MARK)
    return {name.removeprefix(DECISION_MARK): value["decision"] for name, value in marks.items()}


def unanswered(deps: Deps, run: Run) -> list[dict[str, Any]]:
    """The calls a run waiting for a person (``waiting_approval``) still waits for: ``[{call_id, tool, arguments}]``."""
    raw = deps.runs.load_checkpoint(run.run_id)
    if not raw:
        return []
    answered = decisions(deps, run.run_id)
    calls = [p for p in _approvals(load_state(raw)) if p.decision is None and p.call_id not in answered]
    return [{"call_id": p.call_id, "tool": p.tool, "arguments": p.arguments} for p in calls]


def apply_decisions(deps: Deps, run_id: str, state: LoopState) -> None:
    """Copy the answers into the pending calls of a resumed step."""
    if any(p.decision is None for p in _approvals(state)):
        answered = decisions(deps, run_id)
        for pending in _approvals(state):
            pending.decision = pending.decision or answered.get(pending.call_id)


def _resume_if_ready(
    deps: Deps, run_id: str, state: LoopState, answered: dict[str, Decision], *, token: str | None = None
) -> bool:
    if any(p.call_id not in answered for p in _approvals(state)):
        return False
    token = token or deps.runs.list_marks(run_id, TOKEN_MARK).get(TOKEN_MARK, {}).get("token")
    if not token:
        return False
    deps.orchestrator.resume(token, {"run_id": run_id})
    return True


def store_task_token(deps: Deps, run_id: str, task_token: str) -> dict[str, Any]:
    """The state machine waits for a person: keep its token; resume at once if everything is decided."""
    run, state = _load(deps, run_id)
    deps.runs.put_mark(run_id, TOKEN_MARK, {"token": task_token})
    if run.status.finished:
        deps.orchestrator.resume(task_token, {"run_id": run_id})
    else:
        _resume_if_ready(deps, run_id, state, decisions(deps, run_id), token=task_token)
    return {"run_id": run_id, "status": run.status.value}


def decide(deps: Deps, caller: Caller, run_id: str, call_id: str, decision: Decision) -> dict[str, Any]:
    """The run's owner answers one pending call; another user's run is a 404. The same answer again (a client's
    retry after a lost response) answers as the first did, and writes nothing; another answer is a 409."""
    run = deps.runs.get_run(run_id)
    if run is None or run.user_id != caller.user_id:
        raise NotFound(f"no run {run_id!r}")
    raw = deps.runs.load_checkpoint(run_id)
    if raw is None:  # it never paused (it ended in its first step, or has not ended it yet): nothing to answer
        raise Conflict(f"run {run_id!r} is {run.status.value}, not waiting for an approval")
    state = load_state(raw)
    answered = decisions(deps, run_id)
    given = answered.get(call_id)
    if given is not None:
        if given != decision:
            raise Conflict(f"tool call {call_id!r} was already answered {given!r}", field="call_id")
        return _answer(run, state, call_id, decision, answered)
    if run.status is not RunStatus.WAITING_APPROVAL:
        raise Conflict(f"run {run_id!r} is {run.status.value}, not waiting for an approval")
    pending = next((p for p in _approvals(state) if p.call_id == call_id), None)
    if pending is None:
        raise NotFound(f"no pending tool call {call_id!r} on run {run_id!r}", field="call_id")
    if pending.decision is not None or not deps.runs.put_mark(
        run_id, DECISION_MARK + call_id, {"decision": decision}, only_new=True
    ):
        raise Conflict(f"tool call {call_id!r} was already answered", field="call_id")
    if decision == "always":  # not asked again in this run: the other pending calls of that tool too
        for other in _approvals(state):
            if other.tool == pending.tool and other.call_id != call_id:
                deps.runs.put_mark(run_id, DECISION_MARK + other.call_id, {"decision": "once"}, only_new=True)
    trail = AuditTrail(AuditScope.of_run(run), key=f"{run_id}#approval#{call_id}", clock=deps.clock)
    trail.write(deps.audit, "approval", [None], call_id=call_id, tool=pending.tool, decision=decision)
    if decision == "always":  # and in the runs to come, until the owner revokes it (issue 15.6)
        remembered.remember(deps, run, _agent_owner(deps, run, state), pending.tool, trail)
    answered = decisions(deps, run_id)
    _resume_if_ready(deps, run_id, state, answered)
    return _answer(run, state, call_id, decision, answered)


def _agent_owner(deps: Deps, run: Run, state: LoopState) -> str:
    """Whose agent the run runs: the one its checkpoint pinned; a checkpoint from before it pinned one (version
    6): the agent the user sees of that id now (no agent: the user's)."""
    if state.config is not None:
        return str(state.config["agent"].get("owner") or run.user_id)
    agent = deps.config.find_agent(run.user_id, run.agent_id)
    return agent.owner if agent is not None else run.user_id


def _answer(
    run: Run, state: LoopState, call_id: str, decision: Decision, answered: dict[str, Decision]
) -> dict[str, Any]:
    remaining = [p.call_id for p in _approvals(state) if p.call_id not in answered]
    return {
        "run_id": run.run_id,
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
        state = _state_or_fresh(deps, run)
        recorder = Recorder(deps, run, state)
        reason = _reason(error).encode("utf-8", "backslashreplace").decode("utf-8")
        run.status, run.error, run.updated_at = RunStatus.FAILED, reason, deps.clock.now()
        recorder.event("error", message=reason)
        recorder.event(
            "completed", status=run.status.value, usage=run.usage.model_dump(), tree_usage=run.tree_usage.model_dump()
        )
        run = deps.runs.update_run(run)
        deps.runs.save_checkpoint(run_id, state.model_dump(mode="json"))
        events = recorder.pending_events()
        recorder.flush()
        live.publish(deps, run, events)  # its followers see it end
    return {"run_id": run_id, "status": run.status.value}


def _state_or_fresh(deps: Deps, run: Run) -> LoopState:
    """The run's checkpoint; if it cannot be read, a fresh state whose events follow the stored ones (a run
    with a damaged checkpoint can still be failed)."""
    try:
        raw = deps.runs.load_checkpoint(run.run_id)
        return load_state(raw) if raw else LoopState(user_text=run.input)
    except ValueError:
        seq = max((event.seq for event in deps.runs.list_events(run.run_id)), default=0)
        return LoopState(user_text=run.input, event_seq=seq)


def _reason(error: Any) -> str:
    if isinstance(error, dict):
        name, cause = error.get("Error", "Error"), error.get("Cause", "")
        try:
            parsed = json.loads(cause) if isinstance(cause, str) and cause.startswith("{") else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("errorMessage"):
            return f"{parsed.get('errorType', name)}: {parsed['errorMessage']}"
        return f"{name}: {cause}" if cause else str(name)
    return str(error or "the run failed")
