"""``POST /v1/runs`` with an optional ``Idempotency-Key`` (SPEC §10).

With a key, the run id (and, when the request names no chat, the chat id) is derived from the caller and
the key, so a retry answers the run the first request started instead of starting another: the run item
is created conditionally, and a concurrent duplicate finds it.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from mneme.engine.deps import Deps
from mneme.engine.service import start_run
from mneme.errors import Conflict, RateLimited
from mneme.models.requests import RunRequest
from mneme.models.run import Run
from mneme.models.user import Caller


def submit_run(deps: Deps, caller: Caller, request: RunRequest, idempotency_key: str | None = None) -> Run:
    """Start a run (or, for a repeated key, answer the run it started); the run as it stands. A new run
    counts against the caller's runs per minute (a 429 with ``Retry-After`` past it); a retry does not."""
    if not idempotency_key:
        _count_start(deps, caller)
        return start_run(deps, caller, request).run
    key = hashlib.sha256(f"{caller.user_id}\x00{idempotency_key}".encode()).hexdigest()[:32]
    run_id = f"run-{key}"
    existing = deps.runs.get_run(run_id)
    if existing is not None:
        return _same_request(existing, request)
    if request.chat_id is None:
        request = request.model_copy(update={"chat_id": f"chat-{key}"})
    counted = _count_start(deps, caller)
    try:
        return start_run(deps, caller, request, run_id=run_id).run
    except Conflict:  # a concurrent retry with the same key created the run first: it started nothing
        if counted is not None:
            deps.rates.refund(caller.user_id, now=counted)
        existing = deps.runs.get_run(run_id)
        if existing is None:
            raise
        return _same_request(existing, request)


def _count_start(deps: Deps, caller: Caller) -> datetime | None:
    """Issue 12.10: a fixed window of ``runs_per_user_per_minute`` run starts per user (0: no limit). The
    time counted (to give the start back when it turns out to start nothing), or None when nothing was."""
    limit = deps.settings.runs_per_user_per_minute
    if limit <= 0:
        return None
    now = deps.clock.now()
    retry_after = deps.rates.hit(caller.user_id, now=now, limit=limit)
    if retry_after is not None:
        raise RateLimited(
            f"you started {limit} runs in the last minute, the limit; retry in {retry_after} s",
            details={"retry_after": retry_after},
        )
    return now


def _same_request(run: Run, request: RunRequest) -> Run:
    """A retry must repeat the request: the same key with another agent or input is a 409."""
    if (run.agent_id, run.input) != (request.agent_id, request.input):
        raise Conflict(
            "this Idempotency-Key was used for another request (agent or input differ)", field="Idempotency-Key"
        )
    return run
