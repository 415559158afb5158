"""The memory-write queue on SQS: one message per job, sent in batches of at most ten messages and 1 MiB.

SQS takes a message of at most 1 MiB, and a SendMessageBatch whose messages add up to at most 1 MiB (counted in
UTF-8 bytes). A body is JSON in UTF-8, not escaped ASCII: an escaped CJK character is 6 bytes, and the
extraction job of a 100,000-character input (SPEC §12) could never be queued. Jobs are packed into batches by
size too, so a run's long jobs are not refused together.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import QueueUnavailable
from mneme.observability import traced
from mneme.ports.memory import MemoryWriteJob
from mneme.records import asdict

_BATCH = 10
#: SQS: the messages of one SendMessageBatch add up to at most 1 MiB
BATCH_BYTES = 1024 * 1024


def job_body(job: MemoryWriteJob) -> str:
    body = json.dumps(asdict(job), separators=(",", ":"), default=str, ensure_ascii=False)
    try:
        body.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only its escape can travel
        return json.dumps(asdict(job), separators=(",", ":"), default=str)
    return body


def batches(bodies: Sequence[str]) -> Iterator[list[str]]:
    """Consecutive bodies, at most ten and 1 MiB to a batch (a larger body goes alone, and SQS says why)."""
    batch: list[str] = []
    size = 0
    for body in bodies:
        length = len(body.encode("utf-8", "surrogatepass"))
        if batch and (len(batch) == _BATCH or size + length > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(body)
        size += length
    if batch:
        yield batch


class SqsMemoryQueue:
    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._url = queue_url

    @traced("sqs.enqueue")
    def enqueue(self, jobs: Sequence[MemoryWriteJob]) -> None:
        if not self._url:
            raise QueueUnavailable("no memory queue is configured")
        for batch in batches([job_body(job) for job in jobs]):
            entries = [{"Id": str(i), "MessageBody": body} for i, body in enumerate(batch)]
            try:
                response = self._client.send_message_batch(QueueUrl=self._url, Entries=entries)
            except (ClientError, BotoCoreError) as exc:
                raise QueueUnavailable(f"the memory queue refused the jobs: {exc}") from exc
            if response.get("Failed"):
                failed = ", ".join(f"{f.get('Code')}: {f.get('Message')}" for f in response["Failed"])
                raise QueueUnavailable(f"{len(response['Failed'])} memory jobs were not queued ({failed})")
