"""``POST /v1/runs`` with an optional ``Idempotency-Key`` (SPEC §10).

With a key, the run id (and, when the request names no chat, the chat id) is derived from the caller and
the key, so a retry answers the run the first request started instead of starting another: the run item
is created conditionally, and a concurrent duplicate finds it. A retry must repeat the request exactly (a
digest of the validated body is kept on the run): the same key with another body is a 409
``idempotency_conflict``.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import Future
from datetime import datetime

from mneme.engine import parallel
from mneme.engine.deps import Deps
from mneme.engine.runs.service import start_run
from mneme.errors import Conflict, IdempotencyConflict, InvalidInput, RateLimited
from mneme.models.run import Run
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller


def submit_run(deps: Deps, caller: Caller, request: RunRequest, idempotency_key: str | None = None) -> Run:
    """Start a run (or, for a repeated key, answer the run it started); the run as it stands. A new run
    counts against the caller's runs per minute (a 429 with ``Retry-After`` past it); a retry does not. An empty
    key is a 400: taken for no key, the retry it was meant for would start a second run."""
    if idempotency_key is not None and not idempotency_key.strip():
        raise InvalidInput(
            "Idempotency-Key must not be empty: send a unique key, or no header", field="idempotency-key"
        )
    if idempotency_key is None:
        return start_run(deps, caller, request, admission=_admission(deps, caller)).run
    key = hashlib.sha256(f"{caller.user_id}\x00{idempotency_key}".encode()).hexdigest()[:32]
    run_id = f"run-{key}"
    digest = request_digest(request)
    existing = deps.runs.get_run(run_id)
    if existing is not None:
        return _same_request(existing, request, digest)
    if request.chat_id is None:
        request = request.model_copy(update={"chat_id": f"chat-{key}"})
    admission = _admission(deps, caller)
    try:
        return start_run(deps, caller, request, run_id=run_id, request_digest=digest, admission=admission).run
    except IdempotencyConflict:
        raise
    except Conflict:  # a concurrent retry with the same key created the run first: it started nothing
        if admission is not None:  # settled: start_run waited for it
            deps.rates.refund(caller.user_id, now=admission.result())
        existing = deps.runs.get_run(run_id)
        if existing is None:
            raise
        return _same_request(existing, request, digest)


def _admission(deps: Deps, caller: Caller) -> Future[datetime] | None:
    """Issue 12.10: a fixed window of ``runs_per_user_per_minute`` run starts per user (0: no limit, None).
    The start is counted on the I/O pool, so that the count and the run's config read overlap (one round
    trip less in sequence); start_run waits for it before anything is written or spent."""
    limit = deps.settings.runs_per_user_per_minute
    if limit <= 0:
        return None
    return parallel.submit(_count_start, deps, caller, limit)


def _count_start(deps: Deps, caller: Caller, limit: int) -> datetime:
    """Count one start; the time counted (to give the start back when it turns out to start nothing)."""
    now = deps.clock.now()
    retry_after = deps.rates.hit(caller.user_id, now=now, limit=limit)
    if retry_after is not None:
        raise RateLimited(
            f"you started {limit} runs in the last minute, the limit; retry in {retry_after} s",
            details={"retry_after": retry_after},
        )
    return now


def request_digest(request: RunRequest) -> str:
    """A digest of the request as validated (every field, canonical JSON): what a retry must repeat."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def _same_request(run: Run, request: RunRequest, digest: str) -> Run:
    """A retry must repeat the request exactly (runs from before the digest: the same agent and input)."""
    if run.request_digest:
        same = run.request_digest == digest
    else:
        same = (run.agent_id, run.input) == (request.agent_id, request.input)
    if not same:
        raise IdempotencyConflict(
            "this Idempotency-Key was used for another request (its body differs)", field="Idempotency-Key"
        )
    return run
