"""The one Logger / Metrics pair (Powertools) and the metrics a run emits. Created lazily, not at import."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def logger() -> Any:
    from aws_lambda_powertools import Logger

    return Logger(service="mneme")


@cache
def metrics() -> Any:
    from aws_lambda_powertools import Metrics

    return Metrics(namespace="mneme", service="mneme")


def bind(**keys: Any) -> None:
    """Keys on every following log line of this invocation (run_id, root_run_id, depth, user_id)."""
    logger().append_keys(**{k: v for k, v in keys.items() if v is not None})


def run_metrics(run: Any, outcome: str, model_calls: int) -> None:
    from aws_lambda_powertools.metrics import MetricUnit

    m = metrics()
    m.add_metric(name=f"Runs_{outcome}", unit=MetricUnit.Count, value=1)
    m.add_metric(name="ModelCalls", unit=MetricUnit.Count, value=model_calls)
    usage = run.usage
    m.add_metric(name="InputTokens", unit=MetricUnit.Count, value=usage.input_tokens)
    m.add_metric(name="OutputTokens", unit=MetricUnit.Count, value=usage.output_tokens)
    m.add_metric(name="CacheReadTokens", unit=MetricUnit.Count, value=usage.cache_read_tokens)
    m.add_metric(name="CacheWriteTokens", unit=MetricUnit.Count, value=usage.cache_write_tokens)
    m.add_metric(name="DelegationDepth", unit=MetricUnit.Count, value=run.depth)
