"""The privacy function's Lambda entry point: wiring only.

Its SQS queue delivers exports and erasures the run function accepted (``POST /v1/me/export``,
``DELETE /v1/me``); an hourly schedule sends ``{"action": "purge"}``, which deletes the memory entries whose
time has come. The deps are built once per container on the first event
(:func:`mneme.composition.build_aws`). A job gets the invocation's remaining time less a margin: an erasure
queues what is left when it runs out (:mod:`mneme.engine.privacy.jobs`).
"""

from __future__ import annotations

import os
from typing import Any

_deps: Any = None
#: seconds kept back from the invocation's remaining time (to save the erasure's state and answer)
MARGIN_SECONDS = 60.0


def _get_deps() -> Any:
    global _deps  # noqa: PLW0603 - one set of deps per container, created on first use
    if _deps is None:
        from mneme.composition import build_aws
        from mneme.settings import Settings

        _deps = build_aws(Settings.from_env(os.environ))
    return _deps


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    from mneme import observability
    from mneme.engine.privacy import jobs as privacy_jobs

    observability.start_invocation()
    try:
        if event.get("action") == "purge":
            return privacy_jobs.purge_memories(_get_deps())
        remaining = context.get_remaining_time_in_millis() / 1000 if context is not None else 900.0
        return privacy_jobs.handle_batch(
            _get_deps(), event.get("Records") or [], budget_seconds=max(remaining - MARGIN_SECONDS, 1.0)
        )
    finally:
        observability.end_invocation()
