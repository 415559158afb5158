"""The bundle of ports a run needs, built once per container by the composition root."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from time import monotonic
from typing import Protocol

from mneme.engine.mcp_catalog import McpCatalog
from mneme.models.agent import ModelSpec
from mneme.ports import (
    AuditLog,
    ChatStore,
    Clock,
    ConfigStore,
    Embedder,
    McpToolSource,
    MemoryStore,
    MemoryWriteQueue,
    ModelClient,
    Orchestrator,
    RunStore,
    SecretStore,
    Summarizer,
    ToolInvoker,
)
from mneme.settings import Settings


class ModelRegistry(Protocol):
    def client_for(self, spec: ModelSpec) -> ModelClient:
        """The model client for an agent's model spec (provider + model id)."""
        ...


def new_id() -> str:
    return uuid.uuid4().hex


@dataclass
class Deps:
    settings: Settings
    config: ConfigStore
    chats: ChatStore
    runs: RunStore
    audit: AuditLog
    models: ModelRegistry
    queue: MemoryWriteQueue
    orchestrator: Orchestrator
    tools: ToolInvoker
    clock: Clock
    memory: MemoryStore | None = None  # None: memory not configured (degraded mode)
    embedder: Embedder | None = None
    summarizer: Summarizer | None = None
    mcp: McpToolSource | None = None  # None: agents' MCP servers are not reachable (a warning per run)
    secrets: SecretStore | None = None  # the secrets MCP servers' auth names
    mcp_catalog: McpCatalog = field(default_factory=McpCatalog)
    ids: Callable[[], str] = field(default=new_id)
    monotonic: Callable[[], float] = field(default=monotonic)
