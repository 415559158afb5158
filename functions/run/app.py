"""The run function's Lambda entry point: wiring only.

Every event (API Gateway's HTTP and WebSocket APIs, EventBridge ``mneme.RunRequested``, the redrive
and sweep schedules, the agent-run state machine's steps) goes to one :class:`mneme.runtime.Runtime`,
built once per container on the first call. The health check answers without building anything.

The import is Lambda's init phase: it loads what a run needs (:func:`mneme.cold_start.preload`; the
cold-start rules are stated in ``mneme.cold_start``) with the cyclic garbage collector off, then freezes what
it made. Those objects (modules, classes, validators) live
as long as the container: collecting during the import only walked them, 48 times on python3.13 (133 on
3.11), and frozen they are left out of every later collection. The runtime (settings, clients and their
service models, the stores), built on the first event, is made the same way: it too lives as long as the
container, and its build leaves no cyclic garbage to freeze (``tests/functional/test_handler_import.py``
counts the collections; docs/performance.md §1.2 measures the cold start with and without).
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def _made_for_the_container() -> Iterator[None]:
    """The block runs with the collector off; what it made is frozen if it finished (a failure's traceback
    is garbage to collect), and the collector is back in its previous state either way."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        if collecting:
            gc.enable()


with _made_for_the_container():
    from mneme.cold_start import preload

    preload()
_runtime: Any = None


def _get_runtime() -> Any:
    global _runtime  # noqa: PLW0603 - one runtime per container, created on first use
    if _runtime is None:
        from mneme.runtime import Runtime

        with _made_for_the_container():
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
