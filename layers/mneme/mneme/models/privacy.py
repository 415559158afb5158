"""Privacy operations: exports, erasures with their receipts, and the audit chain's verification report."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ExportState = Literal["pending", "running", "ready", "failed"]
ErasureStatus = Literal["running", "done"]

#: the phases of an erasure, in order; each one is idempotent, so an interrupted erasure resumes after the
#: last phase it finished (and repeats the one it was in).
ERASURE_PHASES = (
    "runs_stopped",
    "inventory",
    "dead_letters",
    "memories",
    "exports",
    "chats",
    "runs",
    "config",
    "audit",
    "verify",
)


class ExportStatus(BaseModel, defer_build=True):
    """One export of a user's data (``POST /v1/me/export``), stored beside the user's configuration."""

    export_id: str
    user_id: str
    status: ExportState = "pending"
    created_at: datetime
    finished_at: datetime | None = None
    expires_at: datetime  # the archive (and this record) are deleted then
    object_key: str
    bytes: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    error: str | None = None


class GlobalMemory(BaseModel, defer_build=True):
    """A memory the user wrote into ``vector.global.*`` (as an admin): listed by an erasure, never deleted."""

    id: str
    namespace: str
    created_at: datetime


class ErasureState(BaseModel, defer_build=True):
    """The state of a user's erasure while it runs, and its receipt when done. Kept (as the writer's
    tombstone: queued memory writes of the user from before it are dropped) for a while after it is done."""

    model_config = ConfigDict(extra="ignore")

    erasure_id: str
    user_id: str
    requested_by: str
    status: ErasureStatus = "running"
    phases_done: list[str] = Field(default_factory=list)
    started_at: datetime
    finished_at: datetime | None = None
    #: what the inventory found (and the erasure deleted), by kind; dead letters as the purge met them
    counts: dict[str, int] = Field(default_factory=dict)
    #: sha256 over the inventory's keys, sorted, one per line (the ``key`` values an export lists)
    digest: str | None = None
    keys: int = 0
    #: found by the final check after the inventory was taken (written meanwhile by a run still in flight)
    late: dict[str, int] = Field(default_factory=dict)
    audit_redacted: int = 0
    global_memories: list[GlobalMemory] = Field(default_factory=list)
    global_memories_total: int = 0
    #: revisions of global agents, tasks and skills the user (an admin) made: their author becomes
    #: ``erased:<erasure_id>`` (docs/privacy.md)
    global_revisions: int = 0
    chain_head: dict[str, Any] | None = None
    verified: bool = False

    def receipt(self) -> dict[str, Any]:
        body = self.model_dump(mode="json", exclude={"phases_done"})
        body["phases_done"] = list(self.phases_done)
        return body


class ChainBreak(BaseModel, defer_build=True):
    """The first link of a user's audit chain that does not verify."""

    seq: int
    reason: str
    key: str | None = None
    at: str | None = None
    action: str | None = None


class ChainReport(BaseModel, defer_build=True):
    """``GET /v1/audit/verify``: the caller's hash chain checked from its first record to its head."""

    user_id: str
    verified: bool
    records: int  # chained records checked
    unchained: int = 0  # records written before the chain existed (not covered by it)
    redacted: int = 0
    head: dict[str, Any] | None = None
    first_broken: ChainBreak | None = None
