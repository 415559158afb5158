"""The checkpointed loop state of a run: what survives between steps (stored in the run store).

Only ids, depth and small fields travel through Step Functions; this state lives in the run store.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, model_validator

from mneme.context.fork import ForkPrefix
from mneme.models.chat import ChatMessage, ToolResultMessage
from mneme.models.mcp import McpTool
from mneme.models.memory import MemoryHit
from mneme.models.policy import ResolvedPolicy

Outcome = Literal["done", "delegate", "await_approval", "continue"]


class PendingCall(BaseModel, defer_build=True):
    """A tool call that waits: for a person's decision, for a delegated child run, or (``deferred``) for
    time: the fast path's budget was spent before it ran, so the next step runs it."""

    call_id: str
    tool: str
    arguments: dict[str, Any] = {}
    kind: Literal["approval", "delegation", "deferred"]
    child_run_id: str | None = None
    child_agent_id: str | None = None
    decision: Literal["once", "always", "deny"] | None = None


#: the layout of :class:`LoopState` written today; :func:`load_state` reads this one and every older one.
#: 3: the model's reasoning blocks kept in ``turns``; 4: a pending call may be ``deferred``; 5: a forked
#: child carries its parent's request prefix (``fork``); 6: the run's configuration (``config``).
CHECKPOINT_VERSION = 6


class LoopState(BaseModel, defer_build=True):
    """Everything the loop needs to resume (the checkpoint, versioned by ``checkpoint_version``)."""

    checkpoint_version: int = CHECKPOINT_VERSION
    initialized: bool = False  # False for a child created by its parent: its first step prepares it
    started_at: datetime | None = None  # the date/time shown in the suffix, fixed for the whole run
    user_text: str  # the raw input (the delegation input for a sub-agent), never the suffix
    is_admin: bool = False
    event_triggered: bool = False
    history: list[ChatMessage] = []  # what the model sees before the current message (after the summary)
    reattached_skills: list[str] = []
    chat_message_count: int = 0  # stored chat messages when the run started (masters)
    new_chat: dict[str, Any] | None = None  # a chat that does not exist yet: created with the run's turn
    persisted: bool = True  # False until the fast path's first commit creates the run item
    hits: list[MemoryHit] = []  # auto-injected hits, shown in the suffix of every call of the run
    policy: ResolvedPolicy = ResolvedPolicy()
    turns: list[ChatMessage] = []  # this run's own messages after the user message (v3: reasoning blocks too)
    tool_calls: int = 0
    call_counts: dict[str, int] = {}
    call_order: list[str] = []  # the tool calls of the current assistant turn, in order
    ready: dict[str, ToolResultMessage] = {}  # results of the current turn not yet appended
    pending: list[PendingCall] = []
    approval_reported: list[str] = []  # pending calls already listed in an approval_requested event
    delegation_refused: bool = False  # the state machine's depth guard refused this step's children
    children_ended: bool = False  # the executions of this run's children have all ended (see loop)
    always_allowed: list[str] = []
    fork: ForkPrefix | None = None  # a forked child (issue 35.4): its parent's prefix, sent first
    mcp_tools: list[McpTool] = []  # discovered at run start, offered for the whole run (sorted by name)
    # the agent, task, skills and settings the run started with (engine.runs.pinned_config), run by every later
    # step; None in a checkpoint before version 6 (its steps load the configuration) and before the first step
    config: dict[str, Any] | None = None
    event_seq: int = 0
    request_seq: int = 0
    audit_seq: int = 0

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """Older checkpoints: version 1 kept two flags in an untyped ``extra`` dict (and a model-call
        counter nothing read); versions 2 and 3 need no conversion (3 added ``reasoning`` messages to
        ``turns``, 4 the ``deferred`` kind of pending call, 5 ``fork``, 6 ``config``, all new kinds an older release
        never wrote). A checkpoint from a newer release is refused, not misread."""
        if not isinstance(data, dict):
            return data
        version = data.get("checkpoint_version", 1)
        if not isinstance(version, int) or version > CHECKPOINT_VERSION:
            raise ValueError(f"checkpoint version {version!r} is newer than this release reads ({CHECKPOINT_VERSION})")
        if version == 1:
            extra = data.get("extra") or {}
            data = {k: v for k, v in data.items() if k not in ("extra", "model_calls")}
            data["approval_reported"] = list(extra.get("approval_reported") or [])
            data["delegation_refused"] = bool(extra.get("delegation_refused"))
            version = 2
        if version < CHECKPOINT_VERSION:
            data = {**data, "checkpoint_version": CHECKPOINT_VERSION}
        return data

    @property
    def hit_ids(self) -> list[str]:
        return [hit.id for hit in self.hits]

    @property
    def waiting_children(self) -> list[str]:
        """The child runs this run waits for."""
        return [p.child_run_id for p in self.pending if p.kind == "delegation" and p.child_run_id]

    @property
    def waiting_approvals(self) -> list[PendingCall]:
        return [p for p in self.pending if p.kind == "approval"]

    @property
    def deferred(self) -> list[PendingCall]:
        """Calls the fast path had no time left for: the next step runs them."""
        return [p for p in self.pending if p.kind == "deferred"]


def load_state(raw: dict[str, Any]) -> LoopState:
    """A stored checkpoint of any version as today's :class:`LoopState`."""
    return LoopState.model_validate(raw)
