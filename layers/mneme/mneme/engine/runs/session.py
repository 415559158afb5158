"""What one step of one run works with (built at the start of each step), in two records:

* :class:`StepContext` — what the step reads and never changes: the ports, the run's configuration, its time
  budget, the query embedded early, the remembered approvals (read once, on first need), preview or not;
* :class:`StepWrites` — what the step will write: the run, its loop state (the checkpoint), the recorder (events,
  requests, audit records), the child runs it created, and the step's :class:`~mneme.engine.runs.commit.Ending`
  (the chat turn, the auto-write jobs, a crash), which :mod:`mneme.engine.runs.commit` writes and undoes.

:class:`RunSession` pairs them; its read-only properties name each part where the engine reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.memory_io.ops import MemoryPorts, Ranking
from mneme.engine.runs.ending import Ending
from mneme.engine.runs.recorder import Recorder
from mneme.engine.runs.state import LoopState
from mneme.engine.runs.time_budget import TimeBudget
from mneme.memory.entry_retention import memory_retention
from mneme.memory.policy import MemoryScope, resolved_rules
from mneme.models.audit import AuditRecord
from mneme.models.run import Run
from mneme.ports.stores import RunConfig
from mneme.records import Record, field


class RememberedTools:
    """The user's remembered approvals for the run's agent: read at most once per step, on first need."""

    def __init__(self) -> None:
        self._tools: frozenset[str] | None = None

    def get(self, load: Callable[[], frozenset[str]]) -> frozenset[str]:
        if self._tools is None:
            self._tools = load()
        return self._tools


class StepContext(Record):
    deps: Deps
    config: RunConfig
    time_budget: TimeBudget | None = None  # the time left for blocking calls (None: the preview, which makes none)
    query_vector: Future[list[float]] | None = None  # the user text, embedded while the config loaded
    remembered: RememberedTools = field(default_factory=RememberedTools)
    preview: bool = False  # POST /v1/context/preview: memory reads are audited as ``preview``


class StepWrites(Record, frozen=False):
    run: Run
    state: LoopState
    recorder: Recorder
    children: list[dict[str, Any]] = field(default_factory=list)  # the child runs this step created
    ending: Ending = field(default_factory=Ending)  # the chat turn, the auto-write jobs, a crash


class RunSession(Record, frozen=False):
    context: StepContext
    writes: StepWrites

    @classmethod
    def start(
        cls,
        deps: Deps,
        run: Run,
        state: LoopState,
        config: RunConfig,
        recorder: Recorder,
        **context: Any,
    ) -> RunSession:
        return cls(StepContext(deps, config, **context), StepWrites(run, state, recorder))

    # ---- the context (read-only)
    @property
    def deps(self) -> Deps:
        return self.context.deps

    @property
    def config(self) -> RunConfig:
        return self.context.config

    @property
    def time_budget(self) -> TimeBudget | None:
        return self.context.time_budget

    # ---- what the step will write
    @property
    def run(self) -> Run:
        return self.writes.run

    @property
    def state(self) -> LoopState:
        return self.writes.state

    @property
    def recorder(self) -> Recorder:
        return self.writes.recorder

    @property
    def ending(self) -> Ending:
        return self.writes.ending

    # ---- derived once per use from the context and the (once merged) policy
    @property
    def scope(self) -> MemoryScope:
        run = self.run
        return MemoryScope(
            user_id=run.user_id,
            is_admin=self.state.is_admin,
            chat_id=run.chat_id,
            project_id=run.project_id,
            agent_id=run.agent_id,
            task_id=run.task_id,
            session_id=run.session_id,
        )

    @property
    def memory(self) -> MemoryPorts:
        settings, policy = self.deps.settings, self.state.policy
        return MemoryPorts(
            store=self.deps.memory,
            embedder=self.deps.embedder,
            audit=self.deps.audit,
            clock=self.deps.clock,
            rules=resolved_rules(policy, settings.namespace_rules, self.scope),
            recency_decay=settings.recency_decay if policy.recency_decay is None else policy.recency_decay,
            retention=memory_retention(settings),
            reranker=self.deps.reranker,
            erasures=self.deps.privacy_ledger,
        )

    @property
    def ranking(self) -> Ranking:
        return Ranking.of(self.state.policy)

    def records(self, action: Any, namespaces: list[str | None], /, **detail: Any) -> list[AuditRecord]:
        return self.recorder.audit_records(action, namespaces, **detail)
