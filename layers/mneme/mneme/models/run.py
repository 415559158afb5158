"""Runs, their usage and events (SPEC §2, §10)."""

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mneme.models.budget import BudgetLimits

ToolApproval = Literal["granted", "prompt", "denied"]


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    WAITING_APPROVAL = "waiting_approval"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


class Usage(BaseModel, defer_build=True):
    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0  # from the price table (mneme.models.pricing), set where the engine counts a call

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 10),
        )

    @property
    def total(self) -> int:
        """Every token the model processed (what a budget's ``max_tokens`` counts)."""
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens


EventType = Literal[
    "run_started",
    "context_built",
    "memory_hits",
    "model_call",
    "tool_call",
    "delegation_started",
    "delegation_finished",
    "approval_requested",
    "memory_write_queued",
    "memory_write_skipped",
    "guardrail_intervened",
    "warning",
    "error",
    "cancelled",
    "completed",
]


class RunEvent(BaseModel, defer_build=True):
    """``{seq, type, at, ...type-specific fields}``; the type-specific fields live in ``data``."""

    seq: int
    type: EventType
    at: datetime
    data: dict[str, Any] = Field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        return {**self.data, "seq": self.seq, "type": self.type, "at": self.at.isoformat()}


class Run(BaseModel, defer_build=True):
    run_id: str
    user_id: str
    agent_id: str
    task_id: str | None = None
    chat_id: str | None = None
    project_id: str | None = None
    session_id: str | None = None
    depth: int = Field(default=0, ge=0)  # the limit is a guard (delegation, state machine), not a parse error
    parent_run_id: str | None = None
    root_run_id: str
    status: RunStatus = RunStatus.QUEUED
    input: str = ""
    output: str | None = None
    error: str | None = None
    tool_approval: ToolApproval = "granted"
    usage: Usage = Usage()
    tree_usage: Usage = Usage()
    model_calls: int = 0
    children: list[str] = []
    lineage: list[str] = []  # the ancestors' run ids, root first (empty for a root)
    budget: BudgetLimits | None = None  # the tree's limits, on the root run
    ledger_open: bool = False  # the root's tree counters exist (from its first delegation on)
    #: the state machine execution that runs it (recorded by its first step; None on the fast path): what a
    #: cancel stops and what the sweeper asks about
    execution_arn: str | None = None
    created_at: datetime
    updated_at: datetime
    #: until when the run may go without a step ending: past it, a run that no execution runs is failed as
    #: interrupted by the sweeper (engine/runs/sweeper.py); renewed by every commit
    lease_until: datetime | None = None
    #: a digest of the request that started it (idempotent requests: a retry must repeat it exactly)
    request_digest: str | None = None
    #: the agent's entity tag when the run was created: its revision in ``GET /v1/agents/{id}/revisions``
    agent_version: str | None = None
    version: int = 0  # optimistic-lock counter for conditional writes

    def to_api(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "status": self.status.value,
            "agent_id": self.agent_id,
            "task_id": self.task_id,
            "chat_id": self.chat_id,
            "project_id": self.project_id,
            "depth": self.depth,
            "parent_run_id": self.parent_run_id,
            "root_run_id": self.root_run_id,
            "output": self.output,
            "error": self.error,
            "usage": self.usage.model_dump(),
            "tree_usage": self.tree_usage.model_dump(),
            "model_calls": self.model_calls,
            "children": list(self.children),
            "agent_version": self.agent_version,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }
