"""The composition root for AWS: the one place where boto3 clients are created, once per container."""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.writer import WriterPorts
from mneme.models.agent import ModelSpec
from mneme.settings import Settings


class LazyClient:
    """A boto3 client created on first use (then reused): a cold start pays only for the clients it calls.

    SQS (auto-write), Step Functions (hand-off) and Lambda (external tools) are not needed by most
    invocations; creating each one costs ~10-30 ms of service-model loading (bench/cold_start.py).
    """

    def __init__(self, session: Any, service: str, config: Any) -> None:
        self._session, self._service, self._config = session, service, config
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._session.client(self._service, config=self._config)
        return self._client

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def build_aws(settings: Settings, session: Any | None = None) -> Deps:
    """Deps over real AWS services (DynamoDB, SQS, Step Functions, Lambda, Bedrock, OpenSearch)."""
    import boto3
    from botocore.config import Config

    from mneme.adapters.bedrock_model import bedrock_client_config
    from mneme.adapters.dynamo_items import DynamoItemTable
    from mneme.adapters.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.lambda_tools import LambdaToolInvoker
    from mneme.adapters.model_registry import ModelClients
    from mneme.adapters.s3_exports import S3ExportStorage
    from mneme.adapters.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.sqs_privacy import SqsDeadLetters, SqsPrivacyJobs
    from mneme.adapters.sqs_queue import SqsMemoryQueue
    from mneme.adapters.stores import retention_of, stores_over
    from mneme.clock import SystemClock

    boto = session or boto3.Session(region_name=settings.region)
    retries = bedrock_client_config(max_attempts=3)
    dynamodb = boto.client("dynamodb", config=retries)
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    audit = DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA)
    clock = SystemClock()
    bedrock: list[Any] = []

    def bedrock_client() -> Any:
        if not bedrock:
            bedrock.append(boto.client("bedrock-runtime", config=bedrock_client_config(max_attempts=4)))
        return bedrock[0]

    retention = retention_of(settings)
    sqs = LazyClient(boto, "sqs", retries)
    s3_config = retries.merge(Config(signature_version="s3v4", s3={"addressing_style": "virtual"}))
    s3 = LazyClient(boto, "s3", s3_config)
    deps = Deps(
        settings=settings,
        **stores_over(main, audit, clock, retention).ports(),
        models=ModelClients(bedrock_client),
        queue=SqsMemoryQueue(sqs, settings.memory_queue_url),
        orchestrator=StepFunctionsOrchestrator(LazyClient(boto, "stepfunctions", retries), settings.state_machine_arn),
        tools=LambdaToolInvoker(LazyClient(boto, "lambda", retries)),
        clock=clock,
        exports=S3ExportStorage(s3, settings.export_bucket),
        dead_letters=SqsDeadLetters(sqs, settings.memory_dlq_url),
        privacy_jobs=SqsPrivacyJobs(sqs, settings.privacy_queue_url),
    )
    if settings.opensearch_endpoint:
        deps.memory, deps.embedder = _memory(settings, boto, bedrock_client())
    if settings.summary_model_id:
        from mneme.adapters.model_summarizer import ModelSummarizer

        summary_spec = ModelSpec(provider=settings.model_provider, model_id=settings.summary_model_id)
        deps.summarizer = ModelSummarizer(deps.models.client_for(summary_spec), settings.summary_model_id)
    return deps


def _memory(settings: Settings, boto: Any, bedrock: Any) -> tuple[Any, Any]:
    """The OpenSearch memory store and the Bedrock embedder (both need ``opensearch_endpoint``)."""
    from mneme.adapters.bedrock_embeddings import BedrockEmbedder
    from mneme.adapters.opensearch_memory import OpenSearchMemoryStore, opensearch_client

    store = OpenSearchMemoryStore(
        opensearch_client(
            settings.opensearch_endpoint, settings.region, settings.opensearch_service, boto.get_credentials()
        ),
        index=settings.opensearch_index,
        dimension=settings.embedding_dimension,
        service=settings.opensearch_service,
    )
    embedder = BedrockEmbedder(
        bedrock,
        model_id=settings.embedding_model_id,
        dimension=settings.embedding_dimension,
        normalize=settings.embedding_normalize,
    )
    return store, embedder


def build_writer(settings: Settings, session: Any | None = None) -> WriterPorts:
    """The memory writer's ports only: the memory store and embedder, and the audit table (the writer
    reads no configuration, chats or runs, and needs neither SQS, Step Functions nor Lambda clients)."""
    import boto3

    from mneme.adapters.audit_log import ItemAuditLog
    from mneme.adapters.bedrock_model import bedrock_client_config
    from mneme.adapters.dynamo_items import DynamoItemTable
    from mneme.adapters.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.privacy_ledger import ItemPrivacyLedger
    from mneme.clock import SystemClock
    from mneme.memory.retention import memory_retention

    boto = session or boto3.Session(region_name=settings.region)
    dynamodb = boto.client("dynamodb", config=bedrock_client_config(max_attempts=3))
    audit = ItemAuditLog(DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA))
    clock = SystemClock()
    # the erasure tombstones only (the role may read nothing else of the main table)
    ledger = ItemPrivacyLedger(DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA), clock)
    store, embedder = None, None
    if settings.opensearch_endpoint:
        bedrock = boto.client("bedrock-runtime", config=bedrock_client_config(max_attempts=4))
        store, embedder = _memory(settings, boto, bedrock)
    return WriterPorts(store, embedder, audit, clock, memory_retention(settings), ledger)
