"""The round-trip measure's recorder: every botocore call of the process, on every thread, with its interval.

See bench/round_trips.py. Each call (and each fake standing for one) sleeps the simulated latency, so
calls that the code runs concurrently overlap and count as one sequential step.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

LATENCY = 0.02  # simulated seconds per round trip


@dataclass
class Call:
    label: str
    start: float
    end: float = 0.0
    invocation: str = ""
    thread: str = field(default_factory=lambda: threading.current_thread().name)
    origin: str = field(default_factory=lambda: _origin())  # noqa: PLW0108 - _origin is defined below


def _origin() -> str:
    """Which mneme code made the call: the innermost store method and the engine function above it.

    Code is told by the module it runs in (``mneme`` and its submodules), never by its file's path: a
    checkout whose path contains ``/mneme/`` would otherwise count the local Step Functions emulation
    (``mneme_local``) and the virtualenv's packages (moto) as mneme's own calls."""
    frame = sys._getframe(2)
    store = engine = ""
    mneme = False
    while frame is not None:
        parts = str(frame.f_globals.get("__name__") or "").split(".")
        if parts[0] == "mneme":
            mneme = True
            where = f"{parts[-1]}.{frame.f_code.co_name}"
            if not store and parts[1:2] == ["adapters"] and parts[-1] not in ("table", "wire", "items"):
                store = where
            elif not engine and parts[1:2] in (["engine"], ["memory"]):
                engine = where
        frame = frame.f_back  # type: ignore[assignment]
    return " ← ".join(part for part in (store, engine) if part) or ("mneme" if mneme else "")


@dataclass
class Recorder:
    """Every botocore call of the process, on every thread: the hooks sit in botocore's built-in handlers,
    so each client created afterwards (by mneme, its worker threads, or moto's own executors) carries them.
    Calls made outside mneme's code (moto's Step Functions executor invoking the Lambda) and calls of the
    bench's own observer (polling for the end) are told apart from mneme's."""

    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    invocation: str = ""  # the invocation running now (they run one after another), for every thread
    observer: threading.local = field(default_factory=threading.local)
    pending: dict[int, Call] = field(default_factory=dict)

    @contextmanager
    def call(self, label: str) -> Iterator[None]:
        record = Call(label, time.perf_counter(), invocation=self.invocation)
        time.sleep(LATENCY)
        try:
            yield
        finally:
            record.end = time.perf_counter()
            self._keep(record)

    def _keep(self, record: Call) -> None:
        if getattr(self.observer, "active", False):
            return
        with self.lock:
            self.calls.append(record)

    def _before(self, model: Any, **_: Any) -> None:
        label = f"{model.service_model.endpoint_prefix}:{model.name}"
        self.pending[threading.get_ident()] = Call(label, time.perf_counter(), invocation=self.invocation)
        time.sleep(LATENCY)

    def _after(self, **_: Any) -> None:
        record = self.pending.pop(threading.get_ident(), None)
        if record is not None:
            record.end = time.perf_counter()
            self._keep(record)

    @contextmanager
    def installed(self) -> Iterator[Recorder]:
        import botocore.handlers

        hooks = [("before-call", self._before), ("after-call", self._after), ("after-call-error", self._after)]
        botocore.handlers.BUILTIN_HANDLERS.extend(hooks)
        import boto3

        boto3.DEFAULT_SESSION = None  # the next default session (and its clients) is built with the hooks
        try:
            yield self
        finally:
            for hook in hooks:
                botocore.handlers.BUILTIN_HANDLERS.remove(hook)

    @contextmanager
    def observing(self) -> Iterator[None]:
        """Calls made on this thread meanwhile are the bench's own, not the run's."""
        self.observer.active = True
        try:
            yield
        finally:
            self.observer.active = False

    def take(self) -> list[Call]:
        with self.lock:
            out, self.calls = sorted(self.calls, key=lambda c: c.start), []
        return out


@contextmanager
def serial_transactions() -> Iterator[None]:
    """moto's TransactWriteItems is not thread-safe: two overlapping transactions (mneme commits the run and
    writes the chat concurrently) can fail with "dictionary changed size during iteration" and a 500.
    DynamoDB serializes conflicting transactions; so does this lock, around moto's processing only (the
    simulated latency is spent before it, so concurrent calls still overlap)."""
    from moto.dynamodb.models import DynamoDBBackend

    original = DynamoDBBackend.transact_write_items
    lock = threading.Lock()

    def transact(self: Any, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    DynamoDBBackend.transact_write_items = transact  # type: ignore[method-assign]
    try:
        yield
    finally:
        DynamoDBBackend.transact_write_items = original  # type: ignore[method-assign]


def steps(calls: list[Call]) -> int:
    """Sequential steps: calls whose intervals overlap run concurrently and count once."""
    count, horizon = 0, -1.0
    for call in sorted(calls, key=lambda c: c.start):
        if call.start >= horizon:
            count += 1
        horizon = max(horizon, call.end)
    return count


class Counted:
    """Wraps a fake port: each listed method counts as the AWS call it stands for."""

    def __init__(self, inner: Any, recorder: Recorder, labels: dict[str, str]) -> None:
        self._inner, self._recorder, self._labels = inner, recorder, labels

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        label = self._labels.get(name)
        if label is None or not callable(target):
            return target

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self._recorder.call(label):
                return target(*args, **kwargs)

        return wrapped
