"""The one Logger / Metrics pair (Powertools) and what a run reports. Created lazily, never at import.

Log lines carry ``run_id``, ``root_run_id``, ``depth`` and ``user_id`` (bound per invocation) and never
message content at INFO; metrics are CloudWatch EMF, flushed once per invocation.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_CREATING = threading.Lock()


class _Once:
    """A lazily created singleton; threads that ask at the same time get the one instance. (Powertools'
    Logger is not safe to construct concurrently, and the threaded local server may ask first from two
    request threads at once.)"""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._value: Any = None
        functools.update_wrapper(self, factory)

    def __call__(self) -> Any:
        if self._value is None:
            with _CREATING:
                if self._value is None:
                    self._value = self._factory()
        return self._value

    def cache_clear(self) -> None:
        self._value = None


@_Once
def logger() -> Any:
    from aws_lambda_powertools import Logger

    return Logger(service="mneme")


@_Once
def metrics() -> Any:
    from aws_lambda_powertools import Metrics

    return Metrics(namespace="mneme", service="mneme")


@_Once
def tracer() -> Any:
    """The X-Ray tracer, without the SDK's patchers: ``traced`` opens the subsegments mneme wants (one per
    adapter call); ``patch_all`` would import and wrap botocore, requests, httplib, sqlite3, … at the first
    traced call of a cold start (bench/cold_start.py)."""
    from aws_lambda_powertools import Tracer

    return Tracer(service="mneme", auto_patch=False)


def _tracing() -> bool:
    """X-Ray subsegments only inside Lambda, unless Powertools tracing is switched off."""
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "").lower() in ("1", "true")
    return bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME")) and not disabled


def traced(name: str) -> Callable[[F], F]:
    """Trace an adapter call as an X-Ray subsegment (no payloads recorded: they hold user content)."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not _tracing():
                return function(*args, **kwargs)
            with tracer().provider.in_subsegment(f"## {name}"):
                return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def start_invocation() -> None:
    logger().clear_state()


def bind(**keys: Any) -> None:
    """Keys on every following log line of this invocation."""
    logger().append_keys(**{k: v for k, v in keys.items() if v is not None})


def end_invocation() -> None:
    m = metrics()
    if m.metric_set:
        m.flush_metrics()


def report_step(run: Any, outcome: str, events: Sequence[Any]) -> None:
    """One log line and the run's metrics for a finished step (counts and tokens only, no content)."""
    from aws_lambda_powertools.metrics import MetricUnit

    bind(run_id=run.run_id, root_run_id=run.root_run_id, depth=run.depth, user_id=run.user_id)
    kinds = [event.type for event in events]
    tool_errors = sum(1 for e in events if e.type == "tool_call" and e.data.get("status") == "error")
    hits = sum(int(e.data.get("count", 0)) for e in events if e.type == "memory_hits")
    queued = sum(int(e.data.get("count", 0)) for e in events if e.type == "memory_write_queued")
    logger().info(
        "run step",
        outcome=outcome,
        status=run.status.value,
        model_calls=kinds.count("model_call"),
        tool_errors=tool_errors,
        memory_hits=hits,
        memory_writes_queued=queued,
    )
    m = metrics()
    counts = {
        "ModelCalls": kinds.count("model_call"),
        "ToolErrors": tool_errors,
        "MemoryHits": hits,
        "MemoryWritesQueued": queued,
    }
    if run.status.finished:
        m.add_metric(name=f"Runs{run.status.value.title().replace('_', '')}", unit=MetricUnit.Count, value=1)
        usage = run.usage
        counts |= {
            "InputTokens": usage.input_tokens,
            "OutputTokens": usage.output_tokens,
            "CacheReadTokens": usage.cache_read_tokens,
            "CacheWriteTokens": usage.cache_write_tokens,
        }
        m.add_metric(name="DelegationDepth", unit=MetricUnit.Count, value=run.depth)
        report_cost(run)
    for name, value in counts.items():
        if value:
            m.add_metric(name=name, unit=MetricUnit.Count, value=value)


def report_cost(run: Any) -> None:
    """``CostUsd`` of a finished run (its own model calls) as one EMF record: the agent is a dimension (a
    bounded set); the user and run ids are metadata — searchable in the logs, never a dimension, since
    every distinct dimension value is a new CloudWatch metric (Powertools: high-cardinality data goes into
    metadata)."""
    from aws_lambda_powertools.metrics import MetricUnit, single_metric

    with single_metric(
        name="CostUsd",
        unit=MetricUnit.NoUnit,
        value=float(run.usage.cost_usd),
        namespace="mneme",
        default_dimensions={"service": "mneme"},
    ) as metric:
        metric.add_dimension(name="agent_id", value=run.agent_id)
        metric.add_metadata(key="user_id", value=run.user_id)
        metric.add_metadata(key="run_id", value=run.run_id)
