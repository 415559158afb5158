"""Run events, recorded model requests and audit records of one run.

Events and requests are buffered and written in one batch at the end of a step (fewer round trips);
audit records are written at once, because a memory read may only be used after its record exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mneme.engine.audit import AuditScope, AuditTrail, denial_records
from mneme.engine.deps import Deps
from mneme.engine.runs.state import LoopState
from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.run import EventType, Run, RunEvent

if TYPE_CHECKING:
    from mneme.memory.access import Denial


class Recorder:
    def __init__(self, deps: Deps, run: Run, state: LoopState, *, base_time: datetime | None = None) -> None:
        """``base_time``: the state machine's time of entering this step. It is the same for every retry of
        the step, so audit records get the same keys and a retry stores each record once."""
        self._base_time = base_time
        self._deps = deps
        self.run = run
        self._state = state
        self._events: list[RunEvent] = []
        self._requests: list[tuple[int, dict[str, Any]]] = []

    @property
    def base_time(self) -> datetime | None:
        """The state machine's entered time of this step (None on the fast path)."""
        return self._base_time

    def event(self, type_: EventType, **data: Any) -> RunEvent:
        self._state.event_seq += 1
        event = RunEvent(seq=self._state.event_seq, type=type_, at=self._deps.clock.now(), data=data)
        self._events.append(event)
        return event

    def warning(self, message: str, **data: Any) -> None:
        self.event("warning", message=message, **data)

    @property
    def last_request(self) -> dict[str, Any] | None:
        """The last model request this step recorded (None before its first)."""
        return self._requests[-1][1] if self._requests else None

    def request(self, request: dict[str, Any]) -> int:
        self._state.request_seq += 1
        self._requests.append((self._state.request_seq, request))
        return self._state.request_seq

    def audit_records(self, action: AuditAction, namespaces: list[str | None], /, **detail: Any) -> list[AuditRecord]:
        """Records of this run; numbered by the checkpointed ``audit_seq``, timed by the step's entered time,
        so a retried step builds the same records (see :mod:`mneme.engine.audit`)."""
        return self.trail().records(action, namespaces, **detail)

    def trail(self) -> AuditTrail:
        """The audit trail of this step (records numbered by the checkpoint, timed by the entered time)."""

        def next_seq() -> int:
            self._state.audit_seq += 1
            return self._state.audit_seq

        scope = AuditScope.of_run(self.run)
        return AuditTrail(scope, key=self.run.run_id, clock=self._deps.clock, at=self._base_time, seq=next_seq)

    def audit(self, action: AuditAction, namespaces: list[str | None], /, **detail: Any) -> None:
        """Write audit records now; raises AuditWriteFailed (callers fail closed)."""
        records = self.audit_records(action, namespaces, **detail)
        if records:
            self._deps.audit.append(records)

    def audit_denials(self, denied: Sequence[Denial], *, via: str, count: int | None = None) -> None:
        """Write the one ``denied`` record of a refused request now; raises AuditWriteFailed."""
        records = denial_records(self.audit_records, denied, via=via, count=count)
        if records:
            self._deps.audit.append(records)

    def take(self) -> tuple[list[RunEvent], list[tuple[int, dict[str, Any]]]]:
        """The buffered events and requests, for the step's commit (the buffers are emptied)."""
        events, requests = self._events, self._requests
        self._events, self._requests = [], []
        return events, requests

    def pending_events(self) -> list[RunEvent]:
        """Events not yet written (the preview reads its warnings here and never writes them)."""
        return list(self._events)

    def flush(self) -> None:
        """Write buffered requests and events (idempotent per seq: a retried step rewrites the same items)."""
        for seq, request in self._requests:
            self._deps.runs.put_request(self.run.run_id, seq, request)
        self._requests.clear()
        if self._events:
            self._deps.runs.append_events(self.run.run_id, self._events)
            self._events.clear()
