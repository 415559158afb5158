"""The budget of a run tree (issue 15.4, with issue 12.10's cap on concurrent delegated runs).

The root run resolves its limits once (the lowest of request, agent and deployment, per field) and every run of
the tree carries them. Usage is counted where it is exact and cheap:

* a root run that has not delegated is the whole tree: its own run item counts (no I/O at all, so the fast
  path pays nothing);
* from its first delegation on, the tree's counters live in the ledger (one atomic item per tree, opened
  with what the root used so far): every model call of every run adds to it, and each sub-run is
  **reserved** there before it is created — one conditional increment, so parallel children cannot overspend
  together.

Before every model call the tree's usage is checked: a spent limit ends the run ``failed`` with
``budget_exceeded: <limit> …``. A delegation the budget (``max_runs``) or the concurrency cap refuses is a
tool error the model sees.
"""

from __future__ import annotations

from datetime import datetime

from mneme.engine.deps import Deps
from mneme.engine.runs.session import RunSession
from mneme.errors import BudgetExceeded
from mneme.models.agent import Agent
from mneme.models.budget import Budget, BudgetLimits, TreeUsage
from mneme.models.run import Run, Usage


def limits_for(deps: Deps, agent: Agent, requested: Budget | None) -> BudgetLimits:
    """A root run's limits: each field the lowest of the request's, the agent's and the deployment's."""
    return BudgetLimits.resolve(deps.settings.default_budget, requested, agent.budget)


def _shared(run: Run) -> bool:
    """Whether the run's tree counts in the ledger (every sub-run; a root once it delegated)."""
    return run.depth > 0 or run.ledger_open


def _local_usage(run: Run) -> TreeUsage:
    return TreeUsage(runs=1, model_calls=run.model_calls, tokens=run.usage.total, started_at=run.created_at)


def tree_usage(deps: Deps, run: Run) -> TreeUsage | None:
    """What the run's tree has used (None for a tree whose counters are gone)."""
    if not _shared(run):
        return _local_usage(run)
    return deps.ledger.read(run.root_run_id)


def exceeded(session: RunSession) -> BudgetExceeded | None:
    """Checked before every model call: the limit the tree has spent (model calls, tokens, seconds), if any."""
    run, deps = session.run, session.deps
    if run.budget is None:
        return None
    return _spent(run.budget, tree_usage(deps, run), deps.clock.now())


def _spent(limits: BudgetLimits, usage: TreeUsage | None, now: datetime) -> BudgetExceeded | None:
    """The first of ``limits`` that ``usage`` (as of ``now``) has reached, if any (None without counters)."""
    if usage is None:
        return None
    spent = [
        ("max_model_calls", usage.model_calls, limits.max_model_calls, "model calls"),
        ("max_tokens", usage.tokens, limits.max_tokens, "tokens"),
        ("max_seconds", usage.seconds(now), limits.max_seconds, "seconds"),
    ]
    for limit, used, allowed, unit in spent:
        if used >= allowed:
            return BudgetExceeded(
                f"{limit} — the run tree used {used:,} of its {allowed:,} {unit}",
                details={"limit": limit, "used": used, "allowed": allowed},
            )
    return None


def summary_refused(session: RunSession) -> BudgetExceeded | None:
    """Checked before the rolling summary's call (SPEC §4), one of the run's model calls: the limit that leaves
    no room for it *and* the run's own call after it (a spent limit, or ``max_model_calls`` one call short).
    The summary is then not made (the history passes through unchanged) rather than spending the run's last
    call on it."""
    limits = session.run.budget
    if limits is None:
        return None
    usage = tree_usage(session.deps, session.run)  # read once for both checks (a shared tree's ledger)
    spent = _spent(limits, usage, session.deps.clock.now())
    if spent is not None:
        return spent
    if usage is not None and usage.model_calls + 2 > limits.max_model_calls:
        return BudgetExceeded(
            f"max_model_calls — the run tree used {usage.model_calls:,} of its {limits.max_model_calls:,} model "
            "calls and needs the next one for its own answer",
            details={"limit": "max_model_calls", "used": usage.model_calls, "allowed": limits.max_model_calls},
        )
    return None


def charge_model_call(session: RunSession, usage: Usage) -> None:
    """Count one model call and its tokens for the run and, when it is shared, for its tree."""
    run = session.run
    run.model_calls += 1
    if run.budget is not None and _shared(run):
        session.deps.ledger.charge(run.root_run_id, model_calls=1, tokens=usage.total)


def reserve_child(session: RunSession) -> str | None:
    """Reserve one more run in the tree before a sub-run is created: None when granted, else the reason
    the delegation is refused (the model sees it)."""
    run, deps = session.run, session.deps
    limits = run.budget
    if limits is None:
        return None
    if not run.ledger_open and run.depth == 0:
        deps.ledger.open(run.run_id, _local_usage(run))
        run.ledger_open = True
    cap = deps.settings.max_concurrent_delegations
    reservation = deps.ledger.reserve_run(run.root_run_id, max_runs=limits.max_runs, max_active=cap)
    if reservation.granted:
        return None
    if reservation.refused_by == "max_concurrent":
        return (
            f"delegation refused: {cap} sub-agents of this request are already running (the limit of "
            "concurrent delegated runs); wait for their answers before delegating more"
        )
    started = reservation.usage.runs if reservation.usage else limits.max_runs
    return (
        f"delegation refused: budget_exceeded: max_runs — this request may run at most {limits.max_runs} "
        f"agents in total and {started} have been started; answer with what you have or delegate less"
    )


def release_child(session: RunSession) -> None:
    """A sub-run was collected: one fewer unfinished delegated run in the tree."""
    if session.run.budget is not None:
        session.deps.ledger.release_run(session.run.root_run_id)


def budget_view(deps: Deps, run: Run) -> dict[str, object] | None:
    """``{limits…, used: {runs, model_calls, tokens, active_children, seconds}}`` of the run's tree."""
    if run.budget is None:
        return None
    usage = tree_usage(deps, run)
    return {**run.budget.model_dump(), "used": usage.to_api(_tree_clock(deps, run)) if usage else None}


def _tree_clock(deps: Deps, run: Run) -> datetime:
    """The moment the tree's seconds are counted to: now while it runs, its root's end once that ended (the root
    ends after every run below it), so a finished tree's ``seconds`` stay what it took."""
    root = run if run.run_id == run.root_run_id else deps.runs.get_run(run.root_run_id)
    return root.updated_at if root is not None and root.status.finished else deps.clock.now()
