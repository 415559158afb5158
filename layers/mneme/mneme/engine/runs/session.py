"""Everything one step of one run works with, bundled (built at the start of each step)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.memory_io.ops import MemoryPorts, Ranking
from mneme.engine.runs.recorder import Recorder
from mneme.engine.runs.state import LoopState
from mneme.engine.runs.time_budget import TimeBudget
from mneme.memory.entry_retention import memory_retention
from mneme.memory.policy import MemoryScope, resolved_rules
from mneme.models.audit import AuditRecord
from mneme.models.run import Run
from mneme.ports.stores import RunConfig
from mneme.records import Record, field


class RunSession(Record, frozen=False):
    deps: Deps
    run: Run
    state: LoopState
    config: RunConfig
    recorder: Recorder
    time_budget: TimeBudget | None = None  # the time left for blocking calls (None: the preview, which makes none)
    children: list[dict[str, Any]] = field(default_factory=list)
    query_vector: Future[list[float]] | None = None  # the user text, embedded while the config loaded
    after_writes: list[Callable[[], list[str]]] = field(default_factory=list)  # run beside the commit
    remembered_tools: frozenset[str] | None = None  # the user's remembered approvals for this agent (read once)
    unusable_arguments: set[str] = field(default_factory=set)  # call ids whose arguments were refused
    crash: str | None = None  # the reason, when an unexpected error ended the step (engine/runs/step_end.py)
    preview: bool = False  # POST /v1/context/preview: memory reads are audited as ``preview``
    #: the chat turn this step stored (first position, message count, chat created with it): taken back
    #: when the run does not succeed with it — cancelled at the commit, or crashed (engine/runs/step_end.py)
    stored_turn: tuple[int, int, bool] | None = None

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
        )

    @property
    def ranking(self) -> Ranking:
        return Ranking.of(self.state.policy)

    def records(self, action: Any, namespaces: list[str | None], /, **detail: Any) -> list[AuditRecord]:
        return self.recorder.audit_records(action, namespaces, **detail)
