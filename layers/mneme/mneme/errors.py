"""The one exception hierarchy of mneme.

Adapters translate AWS and transport errors into these; the HTTP layer maps them to responses in
one place (``status`` and ``code``), and the class names are the Step Functions error names used in
the state machine's ``Retry`` / ``Catch``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: what an AWS error's text says of the deployment itself: its account id and the names of its roles and users
#: ("User: arn:aws:sts::123456789012:assumed-role/mneme-RunFunctionRole-X/mneme-Run is not authorized ...")
_ACCOUNT = re.compile(r"(?<![0-9])[0-9]{12}(?![0-9])")
_PRINCIPAL = re.compile(r"(:(?:assumed-role|role|user|federated-user)/)[^\s,;'\"]+")
#: the longest message an error carries: a message quotes the value it refuses, and a hostile value quoted whole
#: (2.4 MB of emoji, 12 bytes each once escaped as JSON) made a response over Lambda's 6 MB, which API Gateway
#: answers with a bare 500; no message mneme writes itself comes near it
MAX_MESSAGE_CHARS = 1_000


def bounded_message(text: str) -> str:
    """``text``, or its first :data:`MAX_MESSAGE_CHARS` characters and how many more there were."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return f"{text[:MAX_MESSAGE_CHARS]}… ({len(text) - MAX_MESSAGE_CHARS:,} more characters)"


class MnemeError(Exception):
    """Base of every error mneme raises on purpose."""

    status: int = 500
    code: str = "internal_error"

    def __init__(self, message: str, *, field: str | None = None, details: dict[str, Any] | None = None):
        message = bounded_message(message)
        super().__init__(message)
        self.message = message
        self.field = field
        self.details = details or {}

    def to_body(self) -> dict[str, Any]:
        """The JSON error body of SPEC §10: ``{"error": code, "message": ...}`` (+ ``field``)."""
        body: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        return body


class InvalidInput(MnemeError):
    status, code = 400, "invalid_input"


class EventRejected(InvalidInput):
    """An event that can never start a run (no user, unknown agent, invalid detail). Raised, not swallowed:
    the asynchronous invocation fails, is retried once and lands in the dead-letter destination with this
    name and message, where an operator sees why."""

    code = "event_rejected"


class Unauthorized(MnemeError):
    status, code = 401, "unauthorized"


class Forbidden(MnemeError):
    status, code = 403, "forbidden"


class NotFound(MnemeError):
    status, code = 404, "not_found"


class Conflict(MnemeError):
    status, code = 409, "conflict"


class IdempotencyConflict(Conflict):
    """An ``Idempotency-Key`` repeated with a request that differs from the first one."""

    code = "idempotency_conflict"


class ErasureInProgress(Conflict):
    """A memory write of a user whose erasure runs, or ran while the write did: nothing of it is kept."""

    code = "erasure_in_progress"


class PreconditionFailed(MnemeError):
    """An ``If-Match`` / ``If-None-Match`` that does not hold for the resource as it is now (a lost update
    avoided); ``details["etag"]`` is the resource's current entity tag, when it exists."""

    status, code = 412, "precondition_failed"


class PayloadTooLarge(MnemeError):
    status, code = 413, "payload_too_large"


class UnsupportedMediaType(MnemeError):
    """A body that is not sent as JSON (``Content-Type`` missing or another type): named, not misread."""

    status, code = 415, "unsupported_media_type"


class EmbeddingInputTooLong(PayloadTooLarge):
    """Content longer than the embedding model takes in one call (and not chunked)."""

    code = "embedding_input_too_long"


class Throttled(MnemeError):
    status, code = 429, "throttled"


class DependencyUnavailable(MnemeError):
    """An external system failed or is not configured. Its message may quote the system's own text, which callers
    and run events show: the account id and the role or user names an AWS error names are left out."""

    status, code = 503, "dependency_unavailable"

    def __init__(self, message: str, *, field: str | None = None, details: dict[str, Any] | None = None):
        super().__init__(deployment_redacted(message), field=field, details=details)


def deployment_redacted(text: str) -> str:
    """``text`` without an AWS account id (``<account>``) or the name of a role or user (``<role>``)."""
    return _ACCOUNT.sub("<account>", _PRINCIPAL.sub(r"\1<principal>", text))


class MemoryUnavailable(DependencyUnavailable):
    code = "memory_unavailable"


class EmbeddingUnavailable(MemoryUnavailable):
    code = "memory_unavailable"


class RerankUnavailable(MemoryUnavailable):
    """The optional reranking stage failed: a search keeps its first-stage order (never fails for it)."""

    code = "memory_unavailable"


class ModelUnavailable(DependencyUnavailable):
    code = "model_unavailable"


class ModelThrottled(ModelUnavailable):
    status, code = 429, "model_throttled"


class ModelTimedOut(ModelUnavailable):
    """The model gave no answer within the call's timeout (the budget's share). Not retried: the fast path
    hands the run to the state machine, a state machine step fails the run with the reason."""

    code = "model_timeout"


class ModelRequestRejected(ModelUnavailable):
    """The model provider refused the request itself (invalid request, unknown model id, no access):
    retrying cannot help, so it is a distinct name for the state machine's ``Retry`` (never listed)."""

    code = "model_request_rejected"


class StoreUnavailable(DependencyUnavailable):
    code = "store_unavailable"


class AuditWriteFailed(DependencyUnavailable):
    """An audit record could not be written: callers fail closed (the read is not used)."""

    code = "audit_unavailable"


class QueueUnavailable(DependencyUnavailable):
    code = "queue_unavailable"


class OrchestratorUnavailable(DependencyUnavailable):
    code = "orchestrator_unavailable"


class McpUnavailable(DependencyUnavailable):
    """An MCP server could not be reached, timed out, or answered something that is not MCP."""

    code = "mcp_unavailable"


class SecretUnavailable(DependencyUnavailable):
    """A secret an MCP server's auth names does not exist, cannot be read, or is not the agent owner's."""

    code = "secret_unavailable"


class ToolError(MnemeError):
    """A tool call failed; the message goes back to the model as a tool error, the run goes on."""

    status, code = 400, "tool_error"


class DelegationRefused(ToolError):
    code = "delegation_refused"


class DepthLimitExceeded(DelegationRefused):
    code = "depth_limit_exceeded"


class BudgetExceeded(MnemeError):
    """A run tree spent a limit of its budget (issue 15.4); ``details["limit"]`` names it."""

    status, code = 409, "budget_exceeded"


class RateLimited(Throttled):
    """A per-user limit (issue 12.10): retry after ``details["retry_after"]`` seconds."""

    code = "rate_limited"


class RunFailedUnexpectedly(MnemeError):
    """An unexpected error (a bug, or input nothing else refused) ended a run's step: the run was marked
    ``failed`` with the reason and an ``error`` event. The answer names the run."""

    status, code = 500, "internal_error"

    def __init__(self, run_id: str, message: str) -> None:
        super().__init__(message, details={"run_id": run_id})
        self.run_id = run_id

    def to_body(self) -> dict[str, Any]:
        return {**super().to_body(), "run_id": self.run_id}


class RunAborted(MnemeError):
    """The run loop stopped on a limit (tool-call budget, repeated identical calls)."""

    status, code = 409, "run_aborted"


_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")
#: the longest part of a failing field's path that is named whole (a part may be a key the client sent)
MAX_FIELD_PART_CHARS = 64


def field_path(parts: Iterable[Any], default: str) -> str:
    """The dotted path of a failing field (``default`` for none), each part by at most its first
    :data:`MAX_FIELD_PART_CHARS` characters: an unknown key of a closed object (``memory``, an MCP server) is a
    part, and one of 2.4 MB named whole, in ``field`` and in the message, made a response over Lambda's 6 MB."""
    named = [
        part if len(part) <= MAX_FIELD_PART_CHARS else f"{part[:MAX_FIELD_PART_CHARS]}…" for part in map(str, parts)
    ]
    return ".".join(named) or default


def validation_text(error: Any, default: str = "invalid value") -> str:
    """One pydantic error's message for a person, without pydantic's ``Value error, `` prefix (a validator's own
    words: "must contain a character other than whitespace", not "Value error, must contain …"), bounded like
    every error's message (:func:`bounded_message`)."""
    message = str(error.get("msg") or default)
    return bounded_message(next((message[len(p) :] for p in _PYDANTIC_PREFIXES if message.startswith(p)), message))
