"""The bundle of ports a run needs, built once per container by the composition root."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from time import monotonic, sleep
from typing import Protocol

from mneme.engine.mcp_catalog import McpCatalog
from mneme.models.agent import ModelSpec
from mneme.ports.audit import AuditLog
from mneme.ports.common import Clock
from mneme.ports.live import LiveFeed, NoLiveFeed, SocketHub
from mneme.ports.mcp import McpToolSource, SecretStore
from mneme.ports.memory import MemoryStore, MemoryWriteQueue
from mneme.ports.memory_revisions import MemoryRevisions
from mneme.ports.models import Embedder, ModelClient, Reranker, Summarizer
from mneme.ports.privacy import DeadLetterQueue, ExportStorage, PrivacyJobQueue, PrivacyLedger
from mneme.ports.runs import ApprovalGrants, Orchestrator, RateLimiter, RunStore, ToolInvoker, TreeLedger
from mneme.ports.stores import ChatStore, ConfigRevisions, ConfigStore
from mneme.records import Record, field
from mneme.settings import Settings


class ModelRegistry(Protocol):
    def client_for(self, spec: ModelSpec) -> ModelClient:
        """The model client for an agent's model spec (provider + model id)."""
        ...


def new_id() -> str:
    return uuid.uuid4().hex


class Deps(Record, frozen=False):
    settings: Settings
    config: ConfigStore
    chats: ChatStore
    runs: RunStore
    audit: AuditLog
    ledger: TreeLedger
    rates: RateLimiter
    grants: ApprovalGrants
    privacy_ledger: PrivacyLedger
    models: ModelRegistry
    queue: MemoryWriteQueue
    orchestrator: Orchestrator
    tools: ToolInvoker
    clock: Clock
    memory: MemoryStore | None = None  # None: memory not configured (degraded mode)
    revisions: MemoryRevisions | None = None  # every change of an entry (issue 35.3); None: not kept
    embedder: Embedder | None = None
    reranker: Reranker | None = None  # the memory search's optional second stage (MNEME_MEMORY_RERANK_MODEL)
    summarizer: Summarizer | None = None
    mcp: McpToolSource | None = None  # None: agents' MCP servers are not reachable (a warning per run)
    secrets: SecretStore | None = None  # the secrets MCP servers' auth names
    mcp_catalog: McpCatalog = field(default_factory=McpCatalog)
    live: LiveFeed = field(default_factory=NoLiveFeed)  # who follows runs live (WebSocket / local SSE)
    sockets: SocketHub | None = None  # the WebSocket API's connections (AWS, when it is deployed)
    config_revisions: ConfigRevisions | None = None  # agents', tasks' and skills' history; None: not kept
    # privacy operations (exports, erasures): None where the deployment has no such resource
    exports: ExportStorage | None = None
    dead_letters: DeadLetterQueue | None = None
    privacy_jobs: PrivacyJobQueue | None = None
    ids: Callable[[], str] = field(default=new_id)
    monotonic: Callable[[], float] = field(default=monotonic)
    sleep: Callable[[float], None] = field(default=sleep)  # a long-poll's wait between reads
