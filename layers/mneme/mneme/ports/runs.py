"""The run ports: the run store, tree ledger, rate limiter, remembered approvals, orchestrator, external tools.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mneme.models import (
    Run,
    RunEvent,
)
from mneme.ports.common import OwnedItem
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from datetime import datetime

    from mneme.models.budget import TreeUsage


class RunFilter(Record, kw_only=True):
    """What ``GET /v1/runs`` asks for: root runs by status, agent, chat and creation time (both included)."""

    status: str | None = None
    agent_id: str | None = None
    chat_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    limit: int = 50
    cursor: str | None = None


class RunPage(Record):
    runs: list[Run]
    cursor: str | None


class RunStore(Protocol):
    def list_runs(self, user_id: str, wanted: RunFilter) -> RunPage:
        """One page of the user's root runs (each with its tree's status and usage), newest first;
        ``cursor`` continues it (None on the last page). InvalidInput for a cursor that is not the user's."""
        ...

    def create_run(self, run: Run) -> None:
        """Raise Conflict when the run id exists."""
        ...

    def get_run(self, run_id: str) -> Run | None: ...

    def list_unfinished(self) -> list[Run]:
        """Every run not yet final (queued / running / waiting_approval), oldest first; read from an
        index, so a run that finished a moment ago may still appear — re-read before acting."""
        ...

    def update_run(self, run: Run) -> Run:
        """Write ``run`` if the stored version equals ``run.version`` (Conflict otherwise); returns the run
        with its version incremented."""
        ...

    def commit(
        self,
        run: Run,
        *,
        create: bool = False,
        events: Sequence[RunEvent] = (),
        requests: Sequence[tuple[int, dict[str, Any]]] = (),
        checkpoint: dict[str, Any] | None = None,
    ) -> Run:
        """End a step in one round trip: the run (created, or updated if its version is unchanged —
        Conflict otherwise), its events, recorded requests and checkpoint. Returns the stored run."""
        ...

    def append_events(self, run_id: str, events: Sequence[RunEvent]) -> None: ...
    def list_events(self, run_id: str) -> list[RunEvent]: ...
    def iter_events(self, run_id: str, *, after: int | None = None) -> Iterator[RunEvent]:
        """The events with ``seq`` greater than ``after``, in order, read as they are consumed (paging)."""
        ...

    def put_request(self, run_id: str, seq: int, request: dict[str, Any]) -> None:
        """Record the exact model request of call ``seq`` (large ones are chunked)."""
        ...

    def list_requests(self, run_id: str) -> list[dict[str, Any]]: ...
    def iter_requests(self, run_id: str, *, after: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(seq, request)`` of the recorded requests after ``after``, in order, read lazily (paging)."""
        ...

    def save_checkpoint(self, run_id: str, state: dict[str, Any]) -> None: ...

    def put_mark(self, run_id: str, name: str, value: dict[str, Any], *, only_new: bool = False) -> bool:
        """Store a small run-scoped fact (an approval decision, a task token); with ``only_new`` the write
        happens only when the name is free (answers False otherwise). Never races the checkpoint."""
        ...

    def list_marks(self, run_id: str, prefix: str = "") -> dict[str, dict[str, Any]]: ...

    def put_outbox(self, run_id: str, jobs: Sequence[dict[str, Any]], *, at: str) -> None:
        """Keep memory-write jobs the queue refused (one outbox per run), for the redrive."""
        ...

    def list_outbox(self, limit: int = 100) -> list[tuple[str, list[dict[str, Any]]]]:
        """Pending outboxes, oldest first: ``(run_id, jobs)``."""
        ...

    def delete_outbox(self, run_id: str) -> None: ...
    def load_checkpoint(self, run_id: str) -> dict[str, Any] | None: ...

    def iter_owned(
        self, user_id: str, run_ids: Sequence[str] = (), *, include_expired: bool = False
    ) -> Iterator[OwnedItem]:
        """The user's runs with their events, recorded requests, checkpoints, approval marks and outboxes:
        those the user's run index lists and ``run_ids`` (found elsewhere) that belong to the user."""
        ...

    def erase_owned(self, user_id: str, run_ids: Sequence[str] = ()) -> dict[str, int]:
        """Delete every item of the user's runs (listed as by :meth:`iter_owned`); answers them by kind."""
        ...


# --------------------------------------------------------------------------------------------- run trees


class Reservation(Record):
    """The answer to a reservation of one more run in a tree: granted, or the limit that refused it."""

    granted: bool
    usage: TreeUsage | None
    refused_by: str | None = None  # "max_runs" | "max_concurrent" when refused


class TreeLedger(Protocol):
    """The counters of one run tree (issue 15.4), keyed by its root run: atomic, shared by every run of it."""

    def open(self, root_run_id: str, usage: TreeUsage) -> None:
        """Create the counters with what the root used so far (nothing happens when they exist)."""
        ...

    def read(self, root_run_id: str) -> TreeUsage | None: ...

    def reserve_run(self, root_run_id: str, *, max_runs: int, max_active: int) -> Reservation:
        """Count one more run (and one more unfinished delegated run) unless that passes a limit."""
        ...

    def release_run(self, root_run_id: str) -> None:
        """A delegated run was collected by its parent: one fewer unfinished."""
        ...

    def charge(self, root_run_id: str, *, model_calls: int, tokens: int) -> None:
        """Add a model call's usage to the tree's counters."""
        ...


class RateLimiter(Protocol):
    def hit(self, user_id: str, *, now: datetime, limit: int, window_seconds: int = 60) -> int | None:
        """Count one run start of ``user_id`` in the current fixed window; None when it is allowed, else the
        seconds until the window ends (the ``Retry-After``)."""
        ...

    def refund(self, user_id: str, *, now: datetime, window_seconds: int = 60) -> None:
        """Give back a start counted at ``now`` that started nothing (a duplicate request)."""
        ...

    def erase_owned(self, user_id: str) -> int:
        """Delete the user's rate windows (an erasure); answers how many there were."""
        ...


class RememberedApproval(Record):
    """A person's ``always`` for one (agent, tool), kept across runs until revoked (issue 15.6)."""

    approval_id: str
    user_id: str
    agent_id: str
    tool: str
    created_at: datetime
    run_id: str | None = None
    #: whose agent it was given for (the user's own, or ``GLOBAL_OWNER``): it holds for that agent only, not for
    #: another owner's agent of the same id; None — remembered before owners were kept — holds for either
    agent_owner: str | None = None

    def holds_for(self, agent_owner: str) -> bool:
        return self.agent_owner is None or self.agent_owner == agent_owner

    def to_api(self) -> dict[str, Any]:
        return {
            "id": self.approval_id,
            "agent_id": self.agent_id,
            "tool": self.tool,
            "created_at": self.created_at.isoformat(),
            "run_id": self.run_id,
        }


class ApprovalGrants(Protocol):
    def remember(
        self, user_id: str, agent_id: str, tool: str, *, agent_owner: str, run_id: str | None, at: datetime
    ) -> RememberedApproval:
        """Keep the grant for the agent of that owner (remembering the same pair again refreshes it); the grant
        as stored."""
        ...

    def list(self, user_id: str) -> list[RememberedApproval]: ...
    def tools_for(self, user_id: str, agent_id: str, agent_owner: str) -> frozenset[str]:
        """The tools the user always approves for this agent (of that owner: the user, or global)."""
        ...

    def revoke(self, user_id: str, approval_id: str) -> RememberedApproval | None:
        """Delete one of the user's remembered approvals; the one deleted, or None when there is none."""
        ...


# --------------------------------------------------------------------------------------------- live runs


class ToolInvoker(Protocol):
    def invoke(self, function_arn: str, payload: dict[str, Any], *, timeout_seconds: float | None = None) -> Any:
        """Call an external tool's Lambda function and return its decoded result; raise ToolError (also when
        it did not answer within ``timeout_seconds``)."""
        ...


class Orchestrator(Protocol):
    def start(self, run_id: str, *, depth: int) -> str:
        """Hand a checkpointed run to the agent-run state machine; the execution name derives from the
        run id so a retry cannot start it twice. Returns the execution id."""
        ...

    def resume(self, task_token: str, output: dict[str, Any]) -> None:
        """Complete a waiting approval task."""
        ...

    def is_running(self, run_id: str, execution_id: str | None) -> bool:
        """Is an execution still running this run? ``execution_id`` as its first step recorded it; without
        one, the execution :meth:`start` would have started (root runs). Raise OrchestratorUnavailable when
        it cannot be told."""
        ...

    def stop(self, run_id: str, *, execution_arn: str | None, depth: int, cause: str) -> bool:
        """Stop the execution running a run (a root's is found from its run id when none is recorded); True
        when one was stopped, False when there was none or it had ended. Never for a retry: idempotent."""
        ...


# --------------------------------------------------------------------------------------------- MCP servers
