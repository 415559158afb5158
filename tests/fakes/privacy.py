"""In-memory fakes of the privacy ports: export storage, the memory dead-letter queue, an inline job queue."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from mneme.errors import QueueUnavailable
from mneme.ports.memory import MemoryWriteJob
from mneme.ports.privacy import PrivacyJob
from mneme.records import asdict


class MemoryExports:
    """Archives by key; ``partial`` holds uploads in progress (what a crash mid-upload leaves)."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.partial: dict[str, bytes] = {}

    def write(self, key: str, lines: Iterable[bytes]) -> int:
        self.objects[key] = b"".join(lines)
        return len(self.objects[key])

    def url(self, key: str, *, filename: str, expires_in: int) -> str:
        return f"memory://exports/{key}?expires_in={expires_in}&filename={filename}"

    def delete(self, key: str) -> None:
        self.objects.pop(key, None)

    def left_under(self, prefix: str) -> list[str]:
        return sorted(k for k in (*self.objects, *self.partial) if k.startswith(prefix))

    def erase_prefix(self, prefix: str) -> int:
        left = self.left_under(prefix)
        for key in left:
            self.objects.pop(key, None)
            self.partial.pop(key, None)
        return len(left)

    def lines(self, key: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.objects[key].decode().splitlines()]


class FakeDeadLetters:
    """The writer's dead-letter queue as a list of message bodies."""

    def __init__(self) -> None:
        self.bodies: list[str] = []

    def add(self, job: MemoryWriteJob) -> None:
        self.bodies.append(json.dumps(asdict(job)))

    def purge_user(self, user_id: str) -> list[str]:
        mine = [b for b in self.bodies if user_id in _writers(json.loads(b))]
        self.bodies = [b for b in self.bodies if b not in mine]
        return [json.loads(b)["job_id"] for b in mine]


def _writers(job: dict[str, Any]) -> set[str]:
    return {str(u) for u in (job.get("owner_user_id"), (job.get("metadata") or {}).get("user_id")) if u}


class InlinePrivacyJobs:
    """Runs each job at once (``handler`` is bound after the deps exist); ``hold`` keeps them instead."""

    def __init__(self) -> None:
        self.handler: Callable[[PrivacyJob], Any] | None = None
        self.jobs: list[PrivacyJob] = []
        self.hold = False
        self.fail = False

    def enqueue(self, job: PrivacyJob) -> None:
        if self.fail:
            raise QueueUnavailable("the fake privacy queue is down")
        self.jobs.append(job)
        if not self.hold and self.handler is not None:
            self.handler(job)

    def drain(self) -> int:
        """Run the held jobs (and those they queue) until none is left; answers how many ran."""
        ran = 0
        while self.jobs and self.handler is not None:
            self.handler(self.jobs.pop(0))
            ran += 1
        return ran
