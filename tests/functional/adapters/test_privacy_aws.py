"""The AWS adapters of the privacy operations under moto: export archives on S3 (stored, presigned, deleted),
the privacy job queue, and the removal of one user's messages from the memory dead-letter queue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
from botocore.config import Config
from moto import mock_aws

from mneme.adapters.aws.s3_exports import S3ExportStorage
from mneme.adapters.aws.sqs_privacy import SqsDeadLetters, SqsPrivacyJobs
from mneme.engine.privacy.jobs import parse_job
from mneme.errors import QueueUnavailable, StoreUnavailable
from mneme.ports.memory import MemoryWriteJob
from mneme.ports.privacy import PrivacyJob
from mneme.records import asdict

KEY = "exports/0123456789abcdef0123456789abcdef/exp-1.ndjson"


@pytest.fixture
def aws() -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def s3(aws: None) -> Any:
    # signed as the composition root's client signs (SigV4: the only signature new regions accept)
    client = boto3.client("s3", region_name="us-east-1", config=Config(signature_version="s3v4"))
    client.create_bucket(Bucket="exports-bucket")
    return client


@pytest.fixture
def sqs(aws: None) -> Any:
    return boto3.client("sqs", region_name="us-east-1")


def test_an_archive_is_stored_whole_encrypted_and_as_ndjson(s3: Any) -> None:
    storage = S3ExportStorage(s3, "exports-bucket")
    lines = [json.dumps({"kind": "settings", "n": i}).encode() + b"\n" for i in range(1000)]
    assert storage.write(KEY, iter(lines)) == sum(map(len, lines))
    stored = s3.get_object(Bucket="exports-bucket", Key=KEY)
    assert stored["Body"].read() == b"".join(lines)
    assert stored["ContentType"] == "application/x-ndjson" and stored["ServerSideEncryption"] == "AES256"


def test_the_download_url_is_a_presigned_get_of_the_archive_valid_for_the_given_time(s3: Any) -> None:
    url = S3ExportStorage(s3, "exports-bucket").url(KEY, filename="mneme-exp-1.ndjson", expires_in=900)
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    assert parts.path.endswith(KEY) and "exports-bucket" in parts.netloc + parts.path
    assert query["X-Amz-Expires"] == ["900"] and "X-Amz-Signature" in query
    assert query["response-content-disposition"] == ['attachment; filename="mneme-exp-1.ndjson"']


def test_a_deleted_archive_is_gone_and_deleting_it_again_is_harmless(s3: Any) -> None:
    storage = S3ExportStorage(s3, "exports-bucket")
    storage.write(KEY, [b"{}\n"])
    storage.delete(KEY)
    storage.delete(KEY)
    assert s3.list_objects_v2(Bucket="exports-bucket").get("KeyCount") == 0


def test_without_a_bucket_the_storage_is_unavailable(s3: Any) -> None:
    with pytest.raises(StoreUnavailable):
        S3ExportStorage(s3, "").write(KEY, [b"{}\n"])
    with pytest.raises(StoreUnavailable):
        S3ExportStorage(s3, "no-such-bucket").write(KEY, [b"{}\n"])


def test_a_privacy_job_goes_to_the_queue_as_the_worker_reads_it(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="privacy")["QueueUrl"]
    job = PrivacyJob("erasure", "alice", "era-1")
    SqsPrivacyJobs(sqs, url).enqueue(job)
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert parse_job(message["Body"]) == job
    with pytest.raises(QueueUnavailable):
        SqsPrivacyJobs(sqs, "").enqueue(job)


def _dead(user: str, job_id: str, *, writer: str | None = None) -> str:
    metadata = {"user_id": writer} if writer else {}
    owner = "" if writer else user
    job = MemoryWriteJob(job_id, f"vector.user.{user}.memory", owner, "content", metadata=metadata)
    return json.dumps(asdict(job))


def test_only_the_users_dead_letters_are_removed(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="memory-dlq")["QueueUrl"]
    bodies = [_dead("alice", f"a{i}") for i in range(12)] + [_dead("bob", "b1"), "not json"]
    bodies.append(_dead("global", "g1", writer="alice"))  # a global write by alice: hers too
    for body in bodies:
        sqs.send_message(QueueUrl=url, MessageBody=body)
    removed = SqsDeadLetters(sqs, url, wait_seconds=0).purge_user("alice")
    assert sorted(removed) == sorted([f"a{i}" for i in range(12)] + ["g1"])
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    left = int(attributes["ApproximateNumberOfMessages"]) + int(attributes["ApproximateNumberOfMessagesNotVisible"])
    assert left == 2  # bob's and the unreadable one stay (hidden for a while, then visible again)


def test_without_a_dead_letter_queue_there_is_nothing_to_remove(sqs: Any) -> None:
    assert SqsDeadLetters(sqs, "").purge_user("alice") == []
