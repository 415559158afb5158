"""Small in-memory fakes of the queue, orchestrator, tool invoker and model registry ports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mneme.errors import QueueUnavailable, ToolError
from mneme.models.agent import ModelSpec
from mneme.ports.memory import MemoryWriteJob
from mneme.ports.models import ModelClient


class FakeQueue:
    def __init__(self) -> None:
        self.jobs: list[MemoryWriteJob] = []
        self.fail = False

    def enqueue(self, jobs: Sequence[MemoryWriteJob]) -> None:
        if self.fail:
            raise QueueUnavailable("the fake queue is down")
        self.jobs.extend(jobs)


class FakeOrchestrator:
    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []
        self.resumed: list[tuple[str, dict[str, Any]]] = []
        self.stopped: list[tuple[str, str | None]] = []  # (run id, execution) stopped by a cancel
        self.described: list[tuple[str, str | None]] = []
        self.running: set[str] = set()  # execution ids that are running
        self.ended: set[str] = set()  # run ids whose started execution has ended

    def start(self, run_id: str, *, depth: int) -> str:
        self.started.append((run_id, depth))
        return f"execution-{run_id}"

    def resume(self, task_token: str, output: dict[str, Any]) -> None:
        self.resumed.append((task_token, output))

    def stop(self, run_id: str, *, execution_arn: str | None, depth: int, cause: str) -> bool:
        started = any(started == run_id for started, _ in self.started)
        arn = execution_arn or (f"execution-{run_id}" if depth == 0 and started else None)
        if arn is None or any(arn == stopped for _, stopped in self.stopped):
            return False
        self.stopped.append((run_id, arn))
        return True

    def is_running(self, run_id: str, execution_id: str | None) -> bool:
        """Running: what was started and not marked ended (``ended``), or an execution id in ``running``."""
        self.described.append((run_id, execution_id))
        if execution_id is not None:
            return execution_id in self.running
        return run_id in {started for started, _ in self.started} and run_id not in self.ended


class FakeToolInvoker:
    def __init__(self, handler: Callable[[str, dict[str, Any]], Any] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.timeouts: list[float | None] = []
        self._handler = handler

    def invoke(self, function_arn: str, payload: dict[str, Any], *, timeout_seconds: float | None = None) -> Any:
        self.calls.append((function_arn, payload))
        self.timeouts.append(timeout_seconds)
        if self._handler is None:
            raise ToolError("no fake tool handler")
        return self._handler(function_arn, payload)


class FixedModels:
    """Every agent talks to the same model client (a ScriptedModel or the OfflineModel)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    def client_for(self, spec: ModelSpec) -> ModelClient:
        return self.client
