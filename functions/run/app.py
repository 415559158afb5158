"""The run function's Lambda entry point: wiring only.

Every event (API Gateway HTTP API, EventBridge ``mneme.RunRequested``, the SQS memory queue, the
agent-run state machine's steps) goes to one :class:`mneme.runtime.Runtime`, built once per container on
the first call. The health check answers without building anything.
"""

from __future__ import annotations

import json
import os
from typing import Any

from mneme.runtime import preload

preload()
_runtime: Any = None


def _get_runtime() -> Any:
    global _runtime  # noqa: PLW0603 - one runtime per container, created on first use
    if _runtime is None:
        from mneme.runtime import Runtime

        _runtime = Runtime.from_env(os.environ)
    return _runtime


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if event.get("rawPath") == "/v1/health":
        return {
            "statusCode": 200,
            "headers": {"Content-Type": "application/json"},
            "body": json.dumps({"status": "ok"}),
        }
    return _get_runtime().handle(event, context)
