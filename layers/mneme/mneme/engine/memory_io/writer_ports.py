"""The memory writer's ports, and the audit of its consolidation decisions (shared by raw and extract jobs)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mneme.engine.audit import AuditScope, AuditTrail
from mneme.engine.deps import Deps, ModelRegistry
from mneme.engine.memory_io.consolidate import Decision
from mneme.memory.entry_retention import MemoryRetention, memory_retention
from mneme.models.audit import AuditAction
from mneme.models.pricing import PriceTable
from mneme.ports.audit import AuditLog
from mneme.ports.common import Clock
from mneme.ports.memory import MemoryStore, MemoryWriteJob
from mneme.ports.models import Embedder
from mneme.ports.privacy import PrivacyLedger
from mneme.ports.runs import RunStore
from mneme.records import Record, field


class WriterPorts(Record):
    store: MemoryStore | None
    embedder: Embedder | None
    audit: AuditLog
    clock: Clock
    models: ModelRegistry | None = None  # the extraction models (None: extract jobs fail, and are retried)
    prices: PriceTable | None = None
    runs: RunStore | None = None  # where an extraction's usage is charged (the run and its tree)
    retention: MemoryRetention = field(default_factory=MemoryRetention)
    ledger: PrivacyLedger | None = None  # the erasure tombstones (None: no erasure is ever checked)

    @classmethod
    def of(cls, deps: Deps) -> WriterPorts:
        """The writer's ports out of a full composition (local mode drains its queue in-process)."""
        return cls(
            deps.memory,
            deps.embedder,
            deps.audit,
            deps.clock,
            deps.models,
            deps.settings.price_table,
            deps.runs,
            memory_retention(deps.settings),
            deps.privacy_ledger,
        )


def job_trail(ports: WriterPorts, job: MemoryWriteJob) -> AuditTrail:
    """The audit trail of a queued job: its run's user, run, tree, agent, task and depth, keyed by the job and
    timed when the run queued it (a redelivered job builds the same records)."""
    meta = job.metadata
    scope = AuditScope(
        user_id=str(meta.get("user_id") or job.owner_user_id),
        run_id=meta.get("run_id"),
        root_run_id=meta.get("root_run_id"),
        agent_id=meta.get("agent_id"),
        task_id=meta.get("task_id"),
        depth=int(meta.get("depth") or 0),
    )
    return AuditTrail(scope, key=job.job_id, clock=ports.clock, at=queued_at(job))


def audit_decisions(ports: WriterPorts, written: Sequence[tuple[MemoryWriteJob, Sequence[Decision]]]) -> None:
    """One record per stored document — ``write`` (new / supersedes) or ``update`` (a refresh) with the reason
    — keyed by the job and timed when the run queued it: a redelivered job builds the same records."""
    records = []
    for job, decisions in written:
        meta = job.metadata
        trail = job_trail(ports, job)
        for decision in decisions:
            detail: dict[str, Any] = {"source": meta.get("source"), "job_id": job.job_id, "reason": decision.reason}
            detail["id"] = decision.doc_id
            if decision.superseded:
                detail["superseded"] = list(decision.superseded)
            if decision.similarity is not None:
                detail["similarity"] = round(decision.similarity, 4)
            action: AuditAction = "update" if decision.action == "update" else "write"
            records += trail.records(action, [job.namespace], via="auto_write", **detail)
    if records:
        ports.audit.append(records)


def queued_at(job: MemoryWriteJob) -> datetime | None:
    """When the run queued the job (its audit time, the same for every delivery)."""
    value = job.metadata.get("queued_at")
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
