"""The SQS sides of the privacy operations: the privacy worker's job queue, and the memory writer's
dead-letter queue, from which an erasure removes the user's failed writes.

Dead letters are read with a visibility timeout long enough for the whole pass: a message of another user
stays hidden until it ends (it reappears by itself; nothing consumes that queue but an operator), so each
message is seen once and the pass ends when a long-polled receive finds nothing more.
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import QueueUnavailable
from mneme.ports.privacy import PrivacyJob
from mneme.records import asdict

#: how long a dead letter stays hidden once the erasure's pass has seen it
DLQ_HIDE_SECONDS = 300
#: receives per pass at most (10 messages each): a larger DLQ is finished by the erasure's next attempt
MAX_RECEIVES = 2_000


class SqsPrivacyJobs:
    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._url = queue_url

    def enqueue(self, job: PrivacyJob) -> None:
        if not self._url:
            raise QueueUnavailable("no privacy queue is configured")
        try:
            self._client.send_message(QueueUrl=self._url, MessageBody=json.dumps(asdict(job), separators=(",", ":")))
        except (ClientError, BotoCoreError) as exc:
            raise QueueUnavailable(f"the privacy queue refused the job: {exc}") from exc


def job_writers(body: str) -> set[str]:
    """The users a memory-write message belongs to (its owner and its writer); none when unreadable."""
    try:
        job = json.loads(body)
        return {str(u) for u in (job.get("owner_user_id"), (job.get("metadata") or {}).get("user_id")) if u}
    except (ValueError, AttributeError):
        return set()


class SqsDeadLetters:
    def __init__(self, client: Any, queue_url: str, *, wait_seconds: int = 1) -> None:
        self._client = client
        self._url = queue_url
        self._wait = wait_seconds

    def purge_user(self, user_id: str) -> list[str]:
        if not self._url:
            return []  # no dead-letter queue in this deployment: nothing can wait there
        removed: list[str] = []
        try:
            for _ in range(MAX_RECEIVES):
                messages = self._client.receive_message(
                    QueueUrl=self._url,
                    MaxNumberOfMessages=10,
                    WaitTimeSeconds=self._wait,
                    VisibilityTimeout=DLQ_HIDE_SECONDS,
                ).get("Messages", [])
                if not messages:
                    return removed
                mine = [m for m in messages if user_id in job_writers(m.get("Body", ""))]
                if mine:
                    entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(mine)]
                    self._client.delete_message_batch(QueueUrl=self._url, Entries=entries)
                    removed += [str(json.loads(m["Body"]).get("job_id", m.get("MessageId"))) for m in mine]
        except (ClientError, BotoCoreError) as exc:
            raise QueueUnavailable(f"the memory dead-letter queue could not be read: {exc}") from exc
        raise QueueUnavailable("the memory dead-letter queue holds more messages than one pass reads")
