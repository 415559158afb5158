"""Every audit record mneme writes is built here (SPEC §9), with one identity and idempotency scheme.

A record's identity (``record_id``, part of its sort key) is a digest of the unit of work it belongs to
(``key``), its sequence number in that unit, and its content. A unit that is retried with the same key,
time and sequence — a state machine step retried from its checkpoint, a redelivered memory-write job, an
approval answered once — writes the same keys again, and the append-only log stores each record once:

============================ =========================================== =============================
unit                         key                                          time
============================ =========================================== =============================
a run step                   the run id (sequence from the checkpoint)    the step's entered time
an approval                  ``<run id>#approval#<call id>``             when it was answered
a queued memory write        the job id                                   when the run queued it
an HTTP request              a fresh random id (a retry is a new request) when it was served
============================ =========================================== =============================

Two rules keep the log complete and bounded (issue 12.7): the namespaces one request was refused are one
``denied`` record however many it named (a count, the reasons and a capped sample; a single one keeps its
namespace), and a soft delete that cascades to entries of other owners writes a ``delete`` record under each
of them, per namespace.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.memory import MemoryDocument
from mneme.models.run import Run
from mneme.ports.audit import AuditLog
from mneme.ports.common import Clock
from mneme.records import Record
from mneme.spec_limits import MAX_NAMESPACES_PER_SEARCH

if TYPE_CHECKING:
    from mneme.memory.access import Denial

#: the namespaces a ``denied`` record of many names lists (a search names at most this many)
DENIAL_SAMPLE = MAX_NAMESPACES_PER_SEARCH
#: the entry ids a cascade ``delete`` record lists
CASCADE_SAMPLE = 50


class AuditScope(Record):
    """Who acted, and inside which run (and delegation tree) when it happened in one."""

    user_id: str
    run_id: str | None = None
    root_run_id: str | None = None
    agent_id: str | None = None
    task_id: str | None = None
    depth: int = 0

    @classmethod
    def of_run(cls, run: Run) -> AuditScope:
        return cls(run.user_id, run.run_id, run.root_run_id, run.agent_id, run.task_id, run.depth)


class AuditTrail:
    """Builds the records of one unit of work (see the module doc); ``seq`` numbers them within it."""

    def __init__(
        self,
        scope: AuditScope,
        *,
        key: str,
        clock: Clock,
        at: datetime | None = None,
        seq: Callable[[], int] | None = None,
    ) -> None:
        self.scope = scope
        self._key = key
        self._clock = clock
        self._at = at
        self._next = seq or itertools.count(1).__next__

    def records(self, action: AuditAction, namespaces: Sequence[str | None], /, **detail: Any) -> list[AuditRecord]:
        """One record per namespace (``[None]`` for an action without one, e.g. a delegation)."""
        at = self._at or self._clock.now()
        scope = self.scope
        out: list[AuditRecord] = []
        for namespace in namespaces:
            seq = self._next()
            identity = json.dumps([self._key, seq, action, namespace, detail], sort_keys=True, default=str)
            out.append(
                AuditRecord(
                    at=at,
                    action=action,
                    user_id=scope.user_id,
                    namespace=namespace,
                    run_id=scope.run_id,
                    root_run_id=scope.root_run_id,
                    agent_id=scope.agent_id,
                    task_id=scope.task_id,
                    depth=scope.depth,
                    detail=dict(detail),
                    record_id=f"{seq % 10_000:04d}{hashlib.sha256(identity.encode()).hexdigest()[:8]}",
                )
            )
        return out

    def write(self, log: AuditLog, action: AuditAction, namespaces: Sequence[str | None], /, **detail: Any) -> None:
        """Build and append at once; raises AuditWriteFailed (callers fail closed)."""
        records = self.records(action, namespaces, **detail)
        if records:
            log.append(records)

    def for_user(self, user_id: str) -> AuditTrail:
        """The same unit of work, recorded under another user's partition (and outside the run: its run,
        agent and tree are the acting user's, not theirs)."""
        return AuditTrail(AuditScope(user_id), key=self._key, clock=self._clock, at=self._at, seq=self._next)


RecordFactory = Callable[..., list[AuditRecord]]


def denial_records(
    records: RecordFactory, denied: Sequence[Denial], *, via: str, count: int | None = None
) -> list[AuditRecord]:
    """The ``denied`` record of what one request was refused: one record, whatever it named (``count``:
    how many it named when ``denied`` is already a sample)."""
    total = len(denied) if count is None else count
    if not denied:
        return []
    if total == 1:
        return records("denied", [denied[0].namespace], via=via, reason=denied[0].reason)
    reasons = Counter(denial.reason for denial in denied)
    sample = [denial.namespace for denial in denied[:DENIAL_SAMPLE]]
    single = {"reason": next(iter(reasons))} if len(reasons) == 1 else {}
    return records("denied", [None], via=via, count=total, namespaces=sample, reasons=dict(reasons), **single)


def cascade_records(
    trail: AuditTrail, deleter: str, target: MemoryDocument, cascaded: Sequence[MemoryDocument], *, via: str
) -> list[AuditRecord]:
    """A soft delete took ``cascaded`` entries (derived from ``target``) with it: one ``delete`` record per
    owner and namespace, under that owner (a global entry's under the deleter)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for document in cascaded:
        owner = document.owner_user_id or deleter
        groups.setdefault((owner, document.namespace), []).append(document.id)
    out: list[AuditRecord] = []
    for (owner, namespace), ids in sorted(groups.items()):
        detail = {"via": via, "cascade_of": target.id, "count": len(ids), "ids": ids[:CASCADE_SAMPLE]}
        if owner != deleter:
            out += trail.for_user(owner).records("delete", [namespace], deleted_by=deleter, **detail)
        else:
            out += trail.records("delete", [namespace], **detail)
    return out


def request_trail(user_id: str, clock: Clock) -> AuditTrail:
    """The trail of one HTTP request outside a run (memory search, write and delete over the API)."""
    return AuditTrail(AuditScope(user_id), key=f"request#{uuid.uuid4().hex}", clock=clock)
