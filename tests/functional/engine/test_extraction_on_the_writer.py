"""Issue 31.2: memory extraction for openai-compatible agents through the memory writer's entry
(``write_batch``). The queued job carries the endpoint, model and key-secret ARN (never the key); the writer
reads the key through the same allow-listed lookup as the run; a writer that cannot call that model finishes
the job with its reason recorded instead of retrying it into the DLQ."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.aws.sqs_queue import job_body
from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.registry import ModelClients
from mneme.composition import _openai_clients
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.ports.memory import MemoryWriteJob
from mneme.settings import Settings
from tests.support.deps import World, make_world
from tests.support.openai_stub import TEXT, StubServer, openai_stub

NS = "vector.agent.alice.memory"


@pytest.fixture
def key_secret() -> Iterator[tuple[Any, str]]:
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="us-east-1")
        arn = client.create_secret(Name="mneme/openai-key", SecretString='{"api_key": "sk-writer"}')["ARN"]
        yield boto3.Session(region_name="us-east-1"), arn


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with openai_stub() as server:
        yield server


def _job(endpoint: str, secret_arn: str) -> MemoryWriteJob:
    model = {
        "provider": "openai-compatible",
        "model_id": "gpt-4o",
        "endpoint": endpoint,
        "api_key_secret_arn": secret_arn,
    }
    metadata = {"source": "extract", "user_id": "alice", "run_id": "run-1", "agent_id": "gpt"}
    return MemoryWriteJob(
        job_id="extract-1",
        namespace=NS,
        owner_user_id="alice",
        content="I live in Porto and I work as a nurse at the city hospital.",
        metadata=metadata,
        kind="extract",
        answer="Noted.",
        strategies=["facts"],
        model=model,
    )


def _drain(world: World, settings: Settings, session: Any, job: MemoryWriteJob) -> dict[str, Any]:
    """The writer's entry over its own settings: the models ``build_writer`` composes from them."""
    models = ModelClients(None, openai=_openai_clients(settings, session, None))
    ports = WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock, models)
    return write_batch(ports, [{"messageId": "m1", "body": job_body(job), "eventSource": "aws:sqs"}])


def _extraction_reply() -> dict[str, Any]:
    reply = copy.deepcopy(TEXT)
    items = {"items": [{"kind": "fact", "text": "The user lives in Porto", "subject": "user lives in"}]}
    reply["choices"][0]["message"]["content"] = json.dumps(items)
    return reply


def test_a_writer_configured_like_the_run_extracts_with_the_allowed_key(key_secret: Any, stub: StubServer) -> None:
    session, arn = key_secret
    world = make_world(OfflineModel())
    stub.reply(_extraction_reply())
    settings = Settings(
        MNEME_OPENAI_ENDPOINTS=stub.base_url,
        MNEME_OPENAI_API_KEY_SECRET_ARNS=arn,
        MNEME_MODEL_ALLOW_PRIVATE_NETWORKS=True,  # the stub listens on loopback
    )
    # When the writer takes the job
    assert _drain(world, settings, session, _job(stub.base_url, arn)) == {"batchItemFailures": []}
    # Then it called the job's endpoint with the secret's key, and stored the fact
    assert [r.headers["authorization"] for r in stub.received] == ["Bearer sk-writer"]
    assert [d.content for d in world.memory.documents.values()] == ["The user lives in Porto"]


def test_a_writer_without_the_providers_settings_finishes_the_job_with_its_reason(key_secret: Any) -> None:
    session, arn = key_secret
    world = make_world(OfflineModel())
    # When a writer that has neither the endpoint nor the key secret allowed takes the job
    answer = _drain(world, Settings(), session, _job("https://llm.example.com/v1", arn))
    # Then the job is done (not retried into the DLQ), nothing is stored, and the reason is audited
    assert answer == {"batchItemFailures": []}
    assert world.memory.documents == {}
    [record] = world.deps.audit.query("alice", action="denied").records
    assert (record.namespace, record.detail["reason"], record.run_id) == (NS, "extraction_unavailable", "run-1")


def test_a_key_secret_outside_the_writers_allow_list_is_not_read(key_secret: Any, stub: StubServer) -> None:
    session, arn = key_secret
    world = make_world(OfflineModel())
    # the endpoint (on loopback: allowed), but no key secret allowed
    settings = Settings(MNEME_OPENAI_ENDPOINTS=stub.base_url, MNEME_MODEL_ALLOW_PRIVATE_NETWORKS=True)
    assert _drain(world, settings, session, _job(stub.base_url, arn)) == {"batchItemFailures": []}
    assert stub.received == []
    [record] = world.deps.audit.query("alice", action="denied").records
    assert record.detail["reason"] == "extraction_unavailable" and "api_key_secret_arn" in record.detail["error"]
