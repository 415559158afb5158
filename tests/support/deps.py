"""Deps wired with in-memory fakes and the real item-table stores (the unit/functional default)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from mneme.adapters.items import AUDIT_SCHEMA, MAIN_SCHEMA
from mneme.adapters.stores import stores_over
from mneme.engine.deps import Deps
from mneme.ports import ModelClient
from mneme.settings import Settings
from tests.fakes.clock import FixedClock
from tests.fakes.embedder import HashingEmbedder
from tests.fakes.items import MemoryItemTable
from tests.fakes.mcp import FakeMcpToolSource, FakeSecrets
from tests.fakes.memory_store import InMemoryMemoryStore
from tests.fakes.ports import FakeOrchestrator, FakeQueue, FakeToolInvoker, FixedModels


@dataclass
class World:
    """The deps plus direct handles on the fakes, for assertions."""

    deps: Deps
    model: ModelClient
    queue: FakeQueue
    orchestrator: FakeOrchestrator
    tools: FakeToolInvoker
    memory: InMemoryMemoryStore
    embedder: HashingEmbedder
    clock: FixedClock
    mcp: FakeMcpToolSource
    secrets: FakeSecrets


def make_world(model: ModelClient, *, memory: bool = True, tools: Any = None, **settings: Any) -> World:
    clock = FixedClock()
    counter = itertools.count(1)
    main = MemoryItemTable(MAIN_SCHEMA)
    store = InMemoryMemoryStore()
    embedder = HashingEmbedder()
    queue, orchestrator, invoker = FakeQueue(), FakeOrchestrator(), FakeToolInvoker(tools)
    mcp, secrets = FakeMcpToolSource(), FakeSecrets()
    deps = Deps(
        settings=Settings.model_validate({"MNEME_MODE": "local", **settings}),
        **stores_over(main, MemoryItemTable(AUDIT_SCHEMA), clock).ports(),
        models=FixedModels(model),
        queue=queue,
        orchestrator=orchestrator,
        tools=invoker,
        clock=clock,
        memory=store if memory else None,
        embedder=embedder if memory else None,
        ids=lambda: f"id{next(counter):04d}",
        mcp=mcp,
        secrets=secrets,
    )
    return World(deps, model, queue, orchestrator, invoker, store, embedder, clock, mcp, secrets)
