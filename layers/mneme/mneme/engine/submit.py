"""``POST /v1/runs`` with an optional ``Idempotency-Key`` (SPEC §10).

With a key, the run id (and, when the request names no chat, the chat id) is derived from the caller and
the key, so a retry answers the run the first request started instead of starting another: the run item
is created conditionally, and a concurrent duplicate finds it. The run keeps a digest of the canonical
request (every field of the body, as validated): a retry whose body differs in anything — input, chat,
approval mode, memory settings — is a 409 ``idempotency_conflict``, never the first request's run.
"""

from __future__ import annotations

import hashlib
import json

from mneme.engine.deps import Deps
from mneme.engine.service import start_run
from mneme.errors import Conflict, IdempotencyConflict
from mneme.models.requests import RunRequest
from mneme.models.run import Run
from mneme.models.user import Caller


def submit_run(deps: Deps, caller: Caller, request: RunRequest, idempotency_key: str | None = None) -> Run:
    """Start a run (or, for a repeated key, answer the run it started); the run as it stands."""
    if not idempotency_key:
        return start_run(deps, caller, request).run
    key = hashlib.sha256(f"{caller.user_id}\x00{idempotency_key}".encode()).hexdigest()[:32]
    run_id = f"run-{key}"
    digest = request_digest(request)
    existing = deps.runs.get_run(run_id)
    if existing is not None:
        return _same_request(existing, request, digest)
    if request.chat_id is None:
        request = request.model_copy(update={"chat_id": f"chat-{key}"})
    try:
        return start_run(deps, caller, request, run_id=run_id, request_digest=digest).run
    except IdempotencyConflict:
        raise
    except Conflict:  # a concurrent retry with the same key created the run first
        existing = deps.runs.get_run(run_id)
        if existing is None:
            raise
        return _same_request(existing, request, digest)


def request_digest(request: RunRequest) -> str:
    """A digest of the request as validated (every field, canonical JSON): what a retry must repeat."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def _same_request(run: Run, request: RunRequest, digest: str) -> Run:
    """A retry must repeat the request exactly (runs from before the digest: the same agent and input)."""
    same = (
        run.request_digest == digest
        if run.request_digest
        else (run.agent_id, run.input)
        == (
            request.agent_id,
            request.input,
        )
    )
    if not same:
        raise IdempotencyConflict(
            "this Idempotency-Key was used for another request (its body differs)", field="Idempotency-Key"
        )
    return run
