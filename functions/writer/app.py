"""The memory writer's Lambda entry point: wiring only.

SQS delivers batches of memory-write jobs from the run function; :class:`mneme.runtime.Runtime` embeds
and bulk-indexes them and answers ``{"batchItemFailures": [...]}`` (the event source mapping reports
partial batch failures), so one bad record never re-delivers the whole batch. The runtime is built once
per container on the first call; nothing heavy is imported at module load.
"""

from __future__ import annotations

import os
from typing import Any

_runtime: Any = None


def _get_runtime() -> Any:
    global _runtime  # noqa: PLW0603 - one runtime per container, created on first use
    if _runtime is None:
        from mneme.runtime import Runtime

        _runtime = Runtime.from_env(os.environ)
    return _runtime


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    return _get_runtime().handle(event, context)
