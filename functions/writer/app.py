"""The memory writer's Lambda entry point: wiring only.

SQS delivers batches of memory-write jobs queued by the run function. The writer's ports (the memory store,
the embedder and the audit table — nothing else) are built once per container on the first batch
(:func:`mneme.composition.build_writer`); :func:`mneme.engine.memory_io.writer.write_batch` embeds and bulk-indexes
the jobs and answers ``{"batchItemFailures": [...]}`` (the event source mapping reports partial batch
failures), so one bad record never re-delivers the whole batch. Nothing heavy is imported at module load.
"""

from __future__ import annotations

import os
from typing import Any

_ports: Any = None


def _get_ports() -> Any:
    global _ports  # noqa: PLW0603 - one set of writer ports per container, created on first use
    if _ports is None:
        from mneme.composition import build_writer
        from mneme.settings import Settings

        _ports = build_writer(Settings.from_env(os.environ))
    return _ports


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    from mneme import observability
    from mneme.engine.memory_io.writer import write_batch

    observability.start_invocation()
    try:
        return write_batch(_get_ports(), event.get("Records") or [])
    finally:
        observability.end_invocation()
