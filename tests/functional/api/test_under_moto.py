"""The handler over the real AWS adapters: DynamoDB (tables built from template.yaml) and SQS under moto,
with the offline model and the in-memory memory store (OpenSearch has no emulator here)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.aws.sqs_queue import SqsMemoryQueue
from mneme.adapters.dynamo.items import AUDIT_SCHEMA, MAIN_SCHEMA
from mneme.adapters.dynamo.stores import stores_over
from mneme.adapters.dynamo.table import DynamoItemTable
from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.writer import WriterPorts, parse_job, write_batch
from mneme.records import replace
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World, make_world
from tests.support.sam_template import create_tables
from tests.support.shapes import AUDIT_KEYS, RUN_KEYS

LONG = "Please remember that the quarterly review moved to the second Thursday of each month from now on."


def _serialize_moto_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """moto's TransactWriteItems deep-copies a table while another thread may write it (the engine ends a
    step with the run's commit beside the chat write); DynamoDB serializes them, so the test does too."""
    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.RLock()
    for name in ("put_item", "update_item", "delete_item", "transact_write_items", "batch_write_item"):
        original = getattr(DynamoDBBackend, name)

        def locked(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            with lock:
                return _original(self, *args, **kwargs)

        monkeypatch.setattr(DynamoDBBackend, name, locked)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[World, Any, str]]:
    _serialize_moto_writes(monkeypatch)
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(dynamodb, {"MainTable": "main", "AuditTable": "audit"})
        sqs = boto3.client("sqs", region_name="us-east-1")
        queue_url = sqs.create_queue(QueueName="memory-writes")["QueueUrl"]
        world = make_world(OfflineModel())
        main = DynamoItemTable(dynamodb, "main", MAIN_SCHEMA)
        world.deps = replace(
            world.deps,
            **stores_over(main, DynamoItemTable(dynamodb, "audit", AUDIT_SCHEMA), world.clock).ports(),
            queue=SqsMemoryQueue(sqs, queue_url),
        )
        yield world, sqs, queue_url


def test_a_run_through_the_handler_is_stored_in_dynamodb_and_queues_its_memories_in_sqs(aws) -> None:
    # Given an auto-writing agent created over HTTP
    world, sqs, queue_url = aws
    api = Api(world)
    assert api.put("/v1/agents/master", {"label": "Master", "memory_policy": {"allow_write": True}}).status == 200
    # When alice runs it
    reply = api.post("/v1/runs", {"agent_id": "master", "input": LONG})
    # Then the run answers 200 and reads back from DynamoDB with its events, request, chat and audit
    assert reply.status == 200 and set(reply.body) >= RUN_KEYS and reply.body["status"] == "succeeded"
    run_id = reply.body["run_id"]
    assert api.get(f"/v1/runs/{run_id}").body["output"] == f"offline: {LONG}"
    assert [e["type"] for e in api.get(f"/v1/runs/{run_id}/events").body["events"]][-1] == "completed"
    assert len(api.get(f"/v1/runs/{run_id}/context").body["requests"]) == 1
    chat = api.get(f"/v1/chats/{reply.body['chat_id']}").body
    assert [m["role"] for m in chat["messages"]] == ["user", "assistant"]
    records = api.get("/v1/audit").body["records"]
    assert records and all(set(r) >= AUDIT_KEYS and r["user_id"] == "alice" for r in records)
    # And its two memory-write jobs are in the SQS queue
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    sources = sorted(parse_job(m["Body"]).metadata["source"] for m in messages)
    assert sources == ["run_input", "run_output"]


def test_another_users_run_stored_in_dynamodb_is_a_404(aws) -> None:
    world, _, _ = aws
    api = Api(world)
    add_agent(world)
    run_id = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}).body["run_id"]
    assert api.get(f"/v1/runs/{run_id}", user="bob").status == 404


def test_the_memory_writer_consumes_the_sqs_messages(aws) -> None:
    world, sqs, queue_url = aws
    api = Api(world)
    api.put("/v1/agents/master", {"label": "Master", "memory_policy": {"allow_write": True}})
    api.post("/v1/runs", {"agent_id": "master", "input": LONG})
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    event = {"Records": [{"messageId": m["MessageId"], "body": m["Body"], "eventSource": "aws:sqs"} for m in messages]}
    assert write_batch(WriterPorts.of(world.deps), json.loads(json.dumps(event))["Records"]) == {
        "batchItemFailures": []
    }
    assert len(world.memory.documents) == 2
