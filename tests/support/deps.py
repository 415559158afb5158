"""Deps wired with in-memory fakes and the real item-table stores (the unit/functional default)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from mneme.adapters.dynamo.items import AUDIT_SCHEMA, MAIN_SCHEMA, ItemTable
from mneme.adapters.dynamo.memory_revisions import ItemMemoryRevisions
from mneme.adapters.dynamo.stores import retention_of, stores_over
from mneme.engine.deps import Deps
from mneme.engine.memory_io.revisions import RevisionedMemoryStore
from mneme.engine.privacy.jobs import run_job
from mneme.ports.models import ModelClient
from mneme.settings import Settings
from tests.fakes.clock import FixedClock
from tests.fakes.embedder import HashingEmbedder
from tests.fakes.items import MemoryItemTable
from tests.fakes.mcp import FakeMcpToolSource, FakeSecrets
from tests.fakes.memory_store import InMemoryMemoryStore
from tests.fakes.ports import FakeOrchestrator, FakeQueue, FakeToolInvoker, FixedModels
from tests.fakes.privacy import FakeDeadLetters, InlinePrivacyJobs, MemoryExports


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
    exports: MemoryExports = field(default_factory=MemoryExports)
    dead_letters: FakeDeadLetters = field(default_factory=FakeDeadLetters)
    privacy_jobs: InlinePrivacyJobs = field(default_factory=InlinePrivacyJobs)


def make_world(
    model: ModelClient,
    *,
    memory: bool = True,
    tools: Any = None,
    tables: tuple[ItemTable, ItemTable] | None = None,
    store: Any = None,
    **settings: Any,
) -> World:
    """``tables`` (main, audit) and ``store`` replace the in-memory table and memory store (backend suites)."""
    clock = FixedClock()
    counter = itertools.count(1)
    main, audit = tables or (MemoryItemTable(MAIN_SCHEMA), MemoryItemTable(AUDIT_SCHEMA))
    store = store if store is not None else InMemoryMemoryStore()
    embedder = HashingEmbedder()
    revisions = ItemMemoryRevisions(main)
    queue, orchestrator, invoker = FakeQueue(), FakeOrchestrator(), FakeToolInvoker(tools)
    mcp, secrets = FakeMcpToolSource(), FakeSecrets()
    exports, dead_letters, jobs = MemoryExports(), FakeDeadLetters(), InlinePrivacyJobs()
    config = Settings.model_validate({"MNEME_MODE": "local", **settings})
    deps = Deps(
        settings=config,
        **stores_over(main, audit, clock, retention_of(config)).ports(),
        models=FixedModels(model),
        queue=queue,
        orchestrator=orchestrator,
        tools=invoker,
        clock=clock,
        memory=RevisionedMemoryStore(store, revisions, clock) if memory else None,
        revisions=revisions if memory else None,
        embedder=embedder if memory else None,
        ids=lambda: f"id{next(counter):04d}",
        mcp=mcp,
        secrets=secrets,
        exports=exports,
        dead_letters=dead_letters,
        privacy_jobs=jobs,
    )
    jobs.handler = lambda job: run_job(deps, job, budget_seconds=600)
    return World(
        deps, model, queue, orchestrator, invoker, store, embedder, clock, mcp, secrets, exports, dead_letters, jobs
    )
