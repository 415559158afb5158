"""The ports: every external system mneme talks to, as a small Protocol.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from mneme.models import (
    Agent,
    AuditRecord,
    Chat,
    ChatMessage,
    MemoryCandidate,
    MemoryDocument,
    Run,
    RunEvent,
    Skill,
    Task,
    Usage,
    UserSettings,
)
from mneme.records import Record, field

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from datetime import datetime

    from mneme.models.budget import TreeUsage
    from mneme.models.memory import KeywordMatches, MemoryClass
    from mneme.models.privacy import ChainReport


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class OwnedItem(Record):
    """One thing a store holds for a user, as an export lists it and an erasure counts it: its ``kind``
    (``agent``, ``message``, ``event``, ``memory``, ``audit`` ...), a ``key`` unique across mneme (an erasure
    receipt's digest is over these keys) and its content as JSON-ready data."""

    kind: str
    key: str
    data: Any


# --------------------------------------------------------------------------------------------- model
class ModelResponse(Record):
    """One Converse reply: the assistant content blocks (``text`` / ``toolUse`` / ``reasoningContent``), stop
    reason and usage. Reasoning blocks carry redacted content as base64 text (JSON-safe, for the checkpoint)."""

    content: list[dict[str, Any]]
    stop_reason: str
    usage: Usage = field(default_factory=Usage)

    @property
    def text(self) -> str:
        return "".join(block["text"] for block in self.content if "text" in block)

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [block["toolUse"] for block in self.content if "toolUse" in block]

    @property
    def reasoning(self) -> list[dict[str, Any]]:
        """The ``reasoningContent`` blocks, in order (never part of :attr:`text`)."""
        return [block for block in self.content if "reasoningContent" in block]


class ModelClient(Protocol):
    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        """Send one Bedrock-Converse-shaped request; raise ModelThrottled / ModelUnavailable on failure, and
        ModelTimedOut when no answer came within ``timeout_seconds`` (retries included; None: the client's
        own timeouts). A timed-out call is not retried."""
        ...


class Summary(Record):
    """A rolling summary and what its model call used (priced by the engine like every model call)."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model_id: str = ""
    provider: str = "offline"


class Summarizer(Protocol):
    def summarize(
        self, previous_summary: str | None, messages: Sequence[ChatMessage], *, timeout_seconds: float | None = None
    ) -> Summary:
        """Compress ``messages`` (with the previous summary) into a new summary, within ``timeout_seconds``
        when given (the run's time budget) and never longer than the summary's own limit."""
        ...


class Embedder(Protocol):
    @property
    def dimension(self) -> int: ...

    @property
    def model_id(self) -> str:
        """The embedding model: keys its input limit and score floors (``mneme.memory.limits``)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text; raise EmbeddingUnavailable on failure."""
        ...


# --------------------------------------------------------------------------------------------- memory
class MemoryStore(Protocol):
    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        """The ``k`` nearest live documents whose namespace matches one of ``patterns`` (resolved, already
        security-filtered). The filter (namespace, not expired, not deleted, not superseded) is applied
        inside the nearest-neighbour search, never after it."""
        ...

    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        """Store documents; identical content in the same namespace refreshes the existing entry. Returns
        the ids in order (the existing id when refreshed)."""
        ...

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None: ...

    def find(self, doc_id: str) -> MemoryDocument | None:
        """A live (not deleted) entry by id alone, in any namespace — the caller checks it may see it."""
        ...

    def update(
        self,
        doc_id: str,
        namespace: str,
        *,
        content: str | None,
        tags: list[str] | None,
        vector: Sequence[float] | None,
        now: datetime,
    ) -> MemoryDocument:
        """Change an entry in place; raise NotFound when it does not exist (or is deleted)."""
        ...

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        """Mark an entry deleted and cascade to entries derived from it; returns every id marked."""
        ...

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        """The entries of these ids, deleted or not, in any namespace (whose entries a cascade deleted: the
        caller audits each owner's)."""
        ...

    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        """Every entry in the user's own namespaces (owner ``user_id``), of every status, expired ones too."""
        ...

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        """The ``vector.global.*`` entries whose metadata names ``user_id`` as their writer."""
        ...

    def hard_delete(self, ids: Sequence[str]) -> int:
        """Remove the entries (every stored copy) for good; answers how many documents were removed."""
        ...

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        """Remove for good every entry expired at ``now``, and every entry of a class in ``cutoffs`` created
        before that class's cutoff; answers how many were removed."""
        ...

    def keyword_search(self, text: str, patterns: Sequence[str], k: int, *, now: datetime) -> list[MemoryCandidate]:
        """The ``k`` best BM25 matches of ``text`` among the same live documents :meth:`search` may see, the
        same filter inside the query; ``similarity`` is BM25 computed with the statistics of those documents
        only (``mneme.memory.keyword_scoring.KeywordSearch``: never another user's)."""
        ...

    def keyword_matches(
        self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
    ) -> KeywordMatches:
        """The live documents of ``patterns`` containing one of ``words`` (the filter inside the query; at most
        ``limit``, the rarest words' first) and the statistics of those namespaces' live documents."""
        ...

    def adjacent(
        self, documents: Sequence[MemoryDocument], span: int, *, now: datetime
    ) -> dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]:
        """For each document, up to ``span`` live documents written just before it (oldest first) and just
        after it (in write order), of its own namespace: the conversation around a stored turn."""
        ...

    def set_status(
        self,
        doc_id: str,
        namespace: str,
        *,
        status: Literal["active", "superseded"],
        superseded_by: str | None,
        now: datetime,
        authority: str | None = None,
    ) -> MemoryDocument:
        """Supersede (or restore) an entry; NotFound when it does not exist or is deleted."""
        ...

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        """Consolidate ``newer`` into the stored entry: ``updated_at``, tags and ``derived_from`` merged,
        the newer metadata (its source appended to ``metadata.sources``); the content stays."""
        ...

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        """One namespace's entries, newest first (``created_at``, then id), optionally of one status, paged
        by an opaque cursor; deleted entries only when ``status == "deleted"``."""
        ...

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        """Every namespace matched by ``patterns`` with its entries counted by status."""
        ...

    def derived_ids(self, doc_id: str) -> list[str]:
        """The live entries a delete of ``doc_id`` would cascade to (transitively), oldest first."""
        ...

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        """Active entries written so recently that :meth:`search` may not show them yet, with their vectors
        (consolidation checks them too); empty for a store that is read-your-writes."""
        ...


class JournalEntry(Record):
    """What a memory store that is not read-your-writes (OpenSearch Serverless) remembers of a recent write."""

    doc_id: str
    namespace: str
    content_hash: str
    native_id: str  # the store's own id (the service-assigned ``_id``)
    status: str = "active"  # active | superseded | deleted
    owner_user_id: str = ""  # the user whose namespace holds it ("" for global entries)


class MemoryJournal(Protocol):
    """Recent writes of the memory store, shared by every process (DynamoDB): mneme id → the store's id and
    status, and (namespace, content hash) → the entry, for the refresh interval the index does not show."""

    def record(self, entries: Sequence[JournalEntry]) -> None: ...

    def lookup(self, doc_ids: Sequence[str]) -> dict[str, JournalEntry]: ...

    def by_hash(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], JournalEntry]: ...

    def recent(self, namespace: str) -> list[JournalEntry]:
        """The active entries of ``namespace`` written inside the window, newest first."""
        ...

    def owned(self, owner_user_id: str) -> list[JournalEntry]:
        """Every entry of the user's namespaces written inside the window, whatever its status now (what an
        erasure or an export must find while a listing, which is a search, does not show it yet)."""
        ...

    def forget(self, doc_ids: Sequence[str]) -> None:
        """Remove everything recorded of these entries (they were deleted for good)."""
        ...


class MemoryWriteJob(Record):
    """One memory entry to embed and index later (the SQS message body of the memory writer)."""

    job_id: str  # deterministic: a retry of the same job must not duplicate the entry
    namespace: str
    owner_user_id: str
    content: str
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    derived_from: list[str] = field(default_factory=list)
    ttl_seconds: int | None = None
    kind: str = "raw"  # "raw": store ``content``; "extract": extract memories from it (issue 13.2)
    answer: str = ""  # the run's answer, for an "extract" job
    strategies: list[str] = field(default_factory=list)  # facts / preferences / summary
    model: dict[str, str] | None = None  # the extraction model {provider, model_id, endpoint?, api_key_secret_arn?}
    duplicate_threshold: float | None = None  # consolidation: None → the embedding model's


class MemoryWriteQueue(Protocol):
    def enqueue(self, jobs: Sequence[MemoryWriteJob]) -> None:
        """Queue jobs for the memory writer; raise QueueUnavailable on failure."""
        ...


# --------------------------------------------------------------------------------------------- audit
class AuditPage(Record):
    records: list[AuditRecord]
    cursor: str | None


class AuditLog(Protocol):
    def append(self, records: Sequence[AuditRecord]) -> None:
        """Append records (never update); raise AuditWriteFailed when any could not be written."""
        ...

    def query(
        self,
        user_id: str,
        *,
        run_id: str | None = None,
        namespace: str | None = None,
        action: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> AuditPage:
        """One user's records, newest first, filtered, paged by an opaque cursor."""
        ...

    def by_root_run(self, root_run_id: str) -> list[AuditRecord]:
        """Every record of one delegation tree, oldest first."""
        ...

    def warm(self, user_id: str) -> None:
        """Read what the user's next append needs (the chain head) ahead of it, beside other I/O."""
        ...

    def iter_owned(self, user_id: str) -> Iterator[OwnedItem]:
        """Every record of the user as stored (with its chain fields), oldest first."""
        ...

    def redact(self, user_id: str, through: AuditRecord) -> int:
        """Replace the ``detail`` of every record of the user chained before ``through`` (a stored record:
        the erasure's own), and of records from before the chain; answers how many were redacted. The one
        sanctioned rewrite of audit records: the chain covers a digest of the detail, which stays."""
        ...

    def verify(self, user_id: str) -> ChainReport:
        """Check the user's hash chain from the first record to the chain head; name the first broken link."""
        ...


# --------------------------------------------------------------------------------------------- config
class RunConfig(Record):
    """What a run needs from the configuration, loaded together (``ConfigStore.load_run_config``)."""

    settings: UserSettings  # the defaults when the user saved none
    agent: Agent  # the user's own agent, else the global one of that id
    task: Task | None  # the named task, else the agent's default task (None when it has none)
    skills: dict[str, Skill]  # the agent's skills that exist, by name, in the agent's order


class ConfigStore(Protocol):
    """User settings, agents, tasks and skills. ``owner`` is a user id or ``GLOBAL_OWNER``."""

    def get_settings(self, user_id: str) -> UserSettings | None: ...
    def put_settings(self, user_id: str, settings: UserSettings) -> None: ...

    def get_agent(self, owner: str, agent_id: str) -> Agent | None: ...
    def list_agents(self, owner: str) -> list[Agent]: ...
    def put_agent(self, agent: Agent) -> None: ...
    def delete_agent(self, owner: str, agent_id: str) -> bool: ...

    def get_task(self, owner: str, agent_id: str, task_id: str) -> Task | None: ...
    def list_tasks(self, owner: str, agent_id: str) -> list[Task]: ...
    def put_task(self, task: Task) -> None: ...
    def delete_task(self, owner: str, agent_id: str, task_id: str) -> bool: ...

    def get_skills(self, owner: str, names: Sequence[str]) -> list[Skill]: ...
    def list_skills(self, owner: str) -> list[Skill]: ...
    def put_skill(self, skill: Skill) -> None: ...
    def delete_skill(self, owner: str, name: str) -> bool: ...

    def find_agent(self, user_id: str, agent_id: str) -> Agent | None:
        """The user's own agent of that id, else the global one (the one visibility rule)."""
        ...

    def visible_agents(self, user_id: str) -> list[Agent]:
        """The user's agents and the global ones they do not shadow, sorted by id."""
        ...

    def find_skill(self, user_id: str, name: str) -> Skill | None: ...
    def visible_skills(self, user_id: str) -> list[Skill]: ...

    def load_run_config(
        self, user_id: str, agent_id: str, task_id: str | None, *, default_task: bool = True
    ) -> RunConfig:
        """Settings, agent (own, else global), task and skills in one batch read (a second one only for
        the skills / default task the agent names). Without a task id the agent's ``default_task_id``
        applies, else its only task when it has exactly one — unless ``default_task`` is False (a run
        that started without a task keeps running without one: nothing is looked up for it). Raise
        NotFound (field ``agent_id`` / ``task_id``) when the agent, or a task named explicitly, does not
        exist."""
        ...

    def iter_owned(self, user_id: str) -> Iterator[OwnedItem]:
        """Everything in the user's configuration partition: settings, agents, tasks, skills, exports."""
        ...

    def erase_owned(self, user_id: str) -> dict[str, int]:
        """Delete the user's configuration partition; answers the items deleted by kind."""
        ...


class ChatStore(Protocol):
    def get_chat(self, user_id: str, chat_id: str, *, messages: bool = True) -> Chat | None:
        """The chat (None when absent or expired); ``messages=False`` reads the header alone."""
        ...

    def get_chat_tail(self, user_id: str, chat_id: str, *, since: int | None = None) -> Chat | None:
        """The chat with its messages from position ``since`` on (default: the first one its summary does
        not cover); ``Chat.first_seq`` says where they start. Reads nothing before that position."""
        ...

    def iter_messages(
        self, user_id: str, chat_id: str, *, after: int | None = None
    ) -> Iterator[tuple[int, ChatMessage]]:
        """``(seq, message)`` of the chat's messages after ``seq`` ``after``, in order, read lazily (paging)."""
        ...

    def list_chats(self, user_id: str) -> list[Chat]:
        """The user's chats without their messages, newest first."""
        ...

    def create_chat(self, chat: Chat) -> None:
        """Raise Conflict when the chat exists."""
        ...

    def append_messages(
        self, user_id: str, chat_id: str, messages: Sequence[ChatMessage], *, expected_count: int
    ) -> None:
        """Append after exactly ``expected_count`` stored messages (Conflict otherwise), so a retried step
        never duplicates messages and two writers never interleave."""
        ...

    def take_back(self, user_id: str, chat_id: str, *, first: int, count: int, created: bool) -> bool:
        """Remove the ``count`` messages stored from position ``first`` while they are still the chat's last
        (a step whose run was cancelled before its commit, or crashed); a chat ``created`` with them goes too.
        False, and nothing changed, when the chat has moved on (or is gone)."""
        ...

    def set_summary(
        self, user_id: str, chat_id: str, summary: str, covers: int, covered_skills: Sequence[str] = ()
    ) -> None:
        """Store the rolling summary, the count of messages it covers and the skills activated in them."""
        ...

    def delete_chat(self, user_id: str, chat_id: str) -> bool: ...

    def iter_owned(
        self, user_id: str, chat_ids: Sequence[str] = (), *, include_expired: bool = False
    ) -> Iterator[OwnedItem]:
        """The user's chats (headers with their summaries) and messages: those the chat index lists and
        ``chat_ids`` (found elsewhere, e.g. on the user's runs)."""
        ...

    def erase_owned(self, user_id: str, chat_ids: Sequence[str] = ()) -> dict[str, int]:
        """Delete the user's chats (those listed and ``chat_ids``); answers the items deleted by kind."""
        ...


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
        self, user_id: str, agent_id: str, tool: str, *, run_id: str | None, at: datetime
    ) -> RememberedApproval:
        """Keep the grant (remembering the same pair again refreshes it); the grant as stored."""
        ...

    def list(self, user_id: str) -> list[RememberedApproval]: ...
    def tools_for(self, user_id: str, agent_id: str) -> frozenset[str]:
        """The tools the user always approves for this agent."""
        ...

    def revoke(self, user_id: str, approval_id: str) -> RememberedApproval | None:
        """Delete one of the user's remembered approvals; the one deleted, or None when there is none."""
        ...


# --------------------------------------------------------------------------------------------- live runs
class LiveFeed(Protocol):
    """Pushes a run's committed events and its model's text deltas to whoever follows the run live (the
    WebSocket API's subscribers on AWS, server-sent events locally). Best effort: it never raises, and a
    lost push loses nothing (the events are durable; a client resumes with ``after=<seq>``)."""

    def listening(self, run: Run) -> bool:
        """Whether anyone follows this run (or a tree it is part of) right now."""
        ...

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None: ...

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None: ...


class NoLiveFeed:
    """Nobody follows runs live (no WebSocket API configured)."""

    def listening(self, run: Run) -> bool:
        return False

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None:
        return None

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None:
        return None


class SocketHub(Protocol):
    """The WebSocket API's connections and subscriptions (AWS only), and pushes to one connection."""

    def connect(self, connection_id: str, user_id: str) -> None: ...
    def user_of(self, connection_id: str) -> str | None: ...
    def disconnect(self, connection_id: str) -> None: ...
    def subscribe(self, connection_id: str, user_id: str, run: Run, *, tree: bool) -> None: ...
    def unsubscribe(self, connection_id: str, run_id: str) -> None: ...
    def send(self, connection_id: str, frame: dict[str, Any]) -> bool:
        """Push one frame; False when the connection is gone (it is forgotten)."""
        ...


class StreamingModel(Protocol):
    def converse_stream(self, request: dict[str, Any], on_text: Callable[[str], None]) -> ModelResponse:
        """Like ``converse``, but the answer's text arrives in pieces through ``on_text`` as it is generated;
        the returned response equals what ``converse`` would have returned."""
        ...


# --------------------------------------------------------------------------------------------- orchestration
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
class OAuthClientCredentials(Record):
    """The client credentials grant of one MCP server (the secret already resolved)."""

    token_url: str
    client_id: str
    client_secret: str = field(repr=False)
    scope: str | None = None


class McpEndpoint(Record):
    """Where and how to reach one MCP server: the URL, the headers of every request (a bearer token, a
    forwarded user id), the OAuth credentials to get a token with, and the time one operation may take."""

    url: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    oauth: OAuthClientCredentials | None = None
    timeout_seconds: float = 10.0


class McpToolInfo(Record):
    """One tool as an MCP server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]


class McpCallResult(Record):
    """A tool call's result as text (text blocks joined; other content summarized), and whether the server
    reported it as an error (``isError``)."""

    text: str
    is_error: bool = False


class McpToolSource(Protocol):
    def list_tools(self, endpoint: McpEndpoint) -> list[McpToolInfo]:
        """Every tool the server lists (all pages); raise McpUnavailable when it cannot be reached or answers
        something that is not MCP."""
        ...

    def call_tool(self, endpoint: McpEndpoint, name: str, arguments: dict[str, Any]) -> McpCallResult:
        """Call one tool; raise McpUnavailable on a transport or protocol failure (a tool's own failure is a
        result with ``is_error``)."""
        ...


class SecretStore(Protocol):
    def get_secret(self, ref: str, *, owner: str) -> str:
        """The value of the secret ``ref`` for an agent of ``owner`` (a user id or ``GLOBAL_OWNER``); raise
        SecretUnavailable when it does not exist, cannot be read, or is not one this owner may use."""
        ...
