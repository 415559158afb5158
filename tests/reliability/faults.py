"""Fault injection helpers: a flaky item table, a flaky audit log, and the memory writer's queue."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.errors import MnemeError
from mneme.records import asdict
from tests.support.deps import World

WRITES = ("put", "update", "transact", "put_many", "delete", "delete_many")


class FlakyTable:
    """Wraps an item table: the ``fail_at``-th write (1-based, counted over every write method) raises
    ``error()`` once; everything else passes through."""

    def __init__(self, inner: Any, error: Callable[[], MnemeError], fail_at: int) -> None:
        self.inner = inner
        self.error = error
        self.fail_at = fail_at
        self.writes = 0
        self.fired = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        if name not in WRITES:
            return attribute

        def write(*args: Any, **kwargs: Any) -> Any:
            self.writes += 1
            if self.writes == self.fail_at:
                self.fired = True
                raise self.error()
            return attribute(*args, **kwargs)

        return write


class FlakyAudit:
    """Wraps the audit log: ``append`` fails while ``failures`` > 0 (each failure uses one)."""

    def __init__(self, inner: Any, error: Callable[[], MnemeError], failures: int = 1, *, when: Any = None) -> None:
        self.inner = inner
        self.error = error
        self.failures = failures
        self.when = when or (lambda records: True)
        self.written: list[Any] = []

    def append(self, records: Any) -> None:
        if self.failures > 0 and self.when(records):
            self.failures -= 1
            raise self.error()
        self.inner.append(records)
        self.written.extend(records)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def swap_main_table(world: World, table: Any) -> None:
    """Point the config, chat and run stores at ``table`` (they share the main table)."""
    stores: tuple[Any, ...] = (world.deps.config, world.deps.chats, world.deps.runs)
    for store in stores:
        store._table = table


def sqs_records(jobs: list[Any], start: int = 0) -> list[dict[str, Any]]:
    return [
        {"messageId": f"m{start + n}", "body": json.dumps(asdict(job)), "eventSource": "aws:sqs"}
        for n, job in enumerate(jobs)
    ]


def drain(world: World, *, max_receives: int = 5) -> tuple[int, list[Any]]:
    """Deliver the fake queue's jobs to the writer like SQS: failed messages are received again, and after
    ``max_receives`` they move to the dead-letter queue. Answers (deliveries, dead-lettered jobs)."""
    pending = list(world.queue.jobs)
    world.queue.jobs.clear()
    deliveries = 0
    dead: list[Any] = []
    for _ in range(max_receives):
        if not pending:
            break
        records = sqs_records(pending)
        deliveries += len(records)
        result = write_batch(WriterPorts.of(world.deps), records)
        failed = {f["itemIdentifier"] for f in result["batchItemFailures"]}
        pending = [job for job, record in zip(pending, records, strict=True) if record["messageId"] in failed]
    dead += pending
    return deliveries, dead
