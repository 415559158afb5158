"""The memory-write queue on SQS: one message per job, sent in batches of ten."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import QueueUnavailable
from mneme.observability import traced
from mneme.ports.memory import MemoryWriteJob
from mneme.records import asdict

_BATCH = 10


def job_body(job: MemoryWriteJob) -> str:
    return json.dumps(asdict(job), separators=(",", ":"), default=str)


class SqsMemoryQueue:
    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._url = queue_url

    @traced("sqs.enqueue")
    def enqueue(self, jobs: Sequence[MemoryWriteJob]) -> None:
        if not self._url:
            raise QueueUnavailable("no memory queue is configured")
        for start in range(0, len(jobs), _BATCH):
            batch = jobs[start : start + _BATCH]
            entries = [{"Id": str(i), "MessageBody": job_body(job)} for i, job in enumerate(batch)]
            try:
                response = self._client.send_message_batch(QueueUrl=self._url, Entries=entries)
            except (ClientError, BotoCoreError) as exc:
                raise QueueUnavailable(f"the memory queue refused the jobs: {exc}") from exc
            if response.get("Failed"):
                failed = ", ".join(f"{f.get('Code')}: {f.get('Message')}" for f in response["Failed"])
                raise QueueUnavailable(f"{len(response['Failed'])} memory jobs were not queued ({failed})")
