"""Calls that must end by a deadline (issues 11.5, 12.9): boto3 clients by read timeout, and a retry loop
that fits the deadline.

botocore fixes a client's read timeout when the client is created, so a call that must end within N seconds
is made with a client created with that timeout (:class:`TimedClients`: whole seconds, rounded down, each
made once and kept). Such clients make one attempt each; :func:`call_within` retries what is worth
retrying (throttling, a 5xx, a dropped connection) with backoff only while the deadline leaves room for
another attempt, and **never retries a read timeout**: the service may still be working on (and billing)
the first request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from botocore.config import Config

from mneme.records import Record, field

T = TypeVar("T")

#: the connect timeout of every timed client; an attempt takes at most this plus its read timeout
CONNECT_TIMEOUT_SECONDS = 2.0
#: no attempt is started with less read time than this
MIN_ATTEMPT_SECONDS = 1.0


#: DynamoDB, SQS and Step Functions: answers in milliseconds; these bound a stalled call
SERVICE_CONNECT_TIMEOUT_SECONDS = 2.0
SERVICE_READ_TIMEOUT_SECONDS = 5.0
#: Bedrock embeddings (one short text per call)
EMBEDDING_READ_TIMEOUT_SECONDS = 5.0


def service_config(*, read_timeout: float = SERVICE_READ_TIMEOUT_SECONDS, max_attempts: int = 3) -> Config:
    """The botocore Config of the store, queue and orchestrator clients: standard retries, short timeouts."""
    return Config(
        retries={"mode": "standard", "total_max_attempts": max_attempts},
        read_timeout=read_timeout,
        connect_timeout=SERVICE_CONNECT_TIMEOUT_SECONDS,
    )


def single_attempt_config(read_timeout: float) -> Config:
    """One attempt (the retries are :func:`call_within`'s), explicit timeouts."""
    return Config(
        retries={"mode": "standard", "total_max_attempts": 1},
        read_timeout=read_timeout,
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
    )


class TimedClients:
    """boto3 clients of one service, one per whole-second read timeout (created on first use)."""

    def __init__(self, create: Callable[[Config], Any]) -> None:
        self._create = create
        self._clients: dict[int, Any] = {}
        self._lock = threading.Lock()

    def for_read_timeout(self, seconds: float) -> Any:
        key = max(int(seconds), int(MIN_ATTEMPT_SECONDS))
        with self._lock:
            if key not in self._clients:
                self._clients[key] = self._create(single_attempt_config(float(key)))
            return self._clients[key]

    @property
    def created(self) -> list[int]:
        """The read timeouts a client exists for (tests, and a bound on how many there are)."""
        with self._lock:
            return sorted(self._clients)


class Attempts(Record):
    """How often, and how patiently, a call is retried."""

    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 4.0
    monotonic: Callable[[], float] = field(default=time.monotonic)
    sleep: Callable[[float], None] = field(default=time.sleep)

    def delay(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


class Retryable(Exception):
    """Raised by an attempt that failed in a way worth another attempt; ``error`` is what to raise if none
    is left."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def call_within(
    attempt: Callable[[float | None], T],
    *,
    timeout_seconds: float | None,
    attempts: Attempts,
) -> T:
    """Run ``attempt(read_timeout)`` until it succeeds, raises something final, or no attempt fits before the
    deadline (``timeout_seconds`` from now; None: no deadline, ``read_timeout`` None). An attempt signals a
    retryable failure by raising :class:`Retryable`."""
    deadline = None if timeout_seconds is None else attempts.monotonic() + timeout_seconds
    for number in range(1, attempts.max_attempts + 1):
        read_timeout = None
        if deadline is not None:
            read_timeout = deadline - attempts.monotonic() - CONNECT_TIMEOUT_SECONDS
        try:
            return attempt(read_timeout)
        except Retryable as failure:
            pause = attempts.delay(number)
            fits = deadline is None or deadline - attempts.monotonic() - pause - CONNECT_TIMEOUT_SECONDS >= (
                MIN_ATTEMPT_SECONDS
            )
            if number == attempts.max_attempts or not fits:
                raise failure.error from failure.__cause__
            attempts.sleep(pause)
    raise AssertionError("unreachable")  # pragma: no cover
