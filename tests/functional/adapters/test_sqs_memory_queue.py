"""The memory-write queue against SQS's limits (moto enforces them as SQS does): a message and a batch of
messages are each at most 1 MiB (1,048,576 bytes). The jobs of one run with a long input — within SPEC §12's
100,000 characters — must all be queued, each exactly as planned."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.aws.sqs_queue import SqsMemoryQueue
from mneme.engine.memory_io.writer import parse_job
from mneme.ports.memory import MemoryWriteJob

CJK = "记"  # 3 bytes in UTF-8, 6 as a JSON \u escape


@pytest.fixture
def sqs() -> Iterator[tuple[Any, str]]:
    with mock_aws():
        client = boto3.client("sqs", region_name="us-east-1")
        yield client, client.create_queue(QueueName="memory-writes")["QueueUrl"]


def _job(n: int, content: str, **fields: Any) -> MemoryWriteJob:
    return MemoryWriteJob(
        job_id=f"run-1-{n}", namespace="user/alice/notes", owner_user_id="alice", content=content, **fields
    )


def _received(client: Any, url: str) -> list[MemoryWriteJob]:
    jobs: list[MemoryWriteJob] = []
    while batch := client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        jobs.extend(parse_job(m["Body"]) for m in batch)
    return sorted(jobs, key=lambda job: job.job_id)


def test_jobs_adding_up_to_more_than_1_mib_are_queued_in_several_batches(sqs: tuple[Any, str]) -> None:
    """Ten jobs of 120 KB went in one SendMessageBatch, refused past 1 MiB: none was queued."""
    client, url = sqs
    jobs = [_job(n, f"{n}" + "x" * 120_000) for n in range(10)]
    SqsMemoryQueue(client, url).enqueue(jobs)
    assert _received(client, url) == jobs


def test_an_extract_job_of_a_long_cjk_input_and_answer_fits_one_message(sqs: tuple[Any, str]) -> None:
    """100,000 CJK characters of input and 80,000 of answer are 540 KB in UTF-8, but were sent as \\u escapes
    (1.08 MB), over SQS's 1 MiB message: the run's extraction job could never be queued."""
    client, url = sqs
    job = _job(0, CJK * 100_000, kind="extract", answer="答" * 80_000, strategies=["facts"])
    SqsMemoryQueue(client, url).enqueue([job])
    assert _received(client, url) == [job]
