"""The composition root for AWS: the one place where the AWS clients are created, once per container.

They are botocore clients made by a botocore session: the same clients boto3 would make (``boto3.client`` is
``botocore.session.create_client``), without importing boto3 and, through it, s3transfer (~260 ms of a
Python 3.13 cold start, docs/performance.md). A boto3 ``Session`` may still be passed in (it has ``client``).
"""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.writer import WriterPorts
from mneme.models.agent import ModelSpec
from mneme.settings import Settings


def make_client(session: Any, service: str, config: Any, region: str) -> Any:
    """A client of ``service`` from a botocore session (``create_client``) or a boto3 one (``client``)."""
    create = getattr(session, "create_client", None)
    if create is not None:
        return create(service, region_name=region, config=config)
    return session.client(service, config=config)


class LazyClient:
    """An AWS client created on first use (then reused): a cold start pays only for the clients it calls.

    SQS (auto-write), Step Functions (hand-off) and Lambda (external tools) are not needed by most
    invocations; creating each one costs ~10-30 ms of service-model loading (bench/cold_start.py).
    """

    def __init__(self, session: Any, service: str, config: Any, region: str) -> None:
        self._session, self._service, self._config, self._region = session, service, config, region
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = make_client(self._session, self._service, self._config, self._region)
        return self._client

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def build_aws(settings: Settings, session: Any | None = None) -> Deps:
    """Deps over real AWS services (DynamoDB, SQS, Step Functions, Lambda, Bedrock, OpenSearch)."""
    import botocore.session

    from mneme.adapters.bedrock_model import bedrock_client_config
    from mneme.adapters.dynamo_items import DynamoItemTable
    from mneme.adapters.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.lambda_tools import LambdaToolInvoker
    from mneme.adapters.model_registry import ModelClients
    from mneme.adapters.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.sqs_queue import SqsMemoryQueue
    from mneme.adapters.stores import retention_of, stores_over
    from mneme.clock import SystemClock

    boto = session or botocore.session.Session()
    region = settings.region
    retries = bedrock_client_config(max_attempts=3)
    if settings.otel_enabled:
        from mneme import telemetry

        telemetry.configure(enabled=True, capture_content=settings.otel_capture_content)
    dynamodb = make_client(boto, "dynamodb", retries, region)
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    audit = DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA)
    clock = SystemClock()
    bedrock: list[Any] = []

    def bedrock_client() -> Any:
        if not bedrock:
            bedrock.append(make_client(boto, "bedrock-runtime", bedrock_client_config(max_attempts=4), region))
        return bedrock[0]

    retention = retention_of(settings)
    deps = Deps(
        settings=settings,
        **stores_over(main, audit, clock, retention).ports(),
        models=ModelClients(bedrock_client, openai=_openai_clients(settings, boto, retries)),
        queue=SqsMemoryQueue(LazyClient(boto, "sqs", retries, region), settings.memory_queue_url),
        orchestrator=StepFunctionsOrchestrator(
            LazyClient(boto, "stepfunctions", retries, region), settings.state_machine_arn
        ),
        tools=LambdaToolInvoker(LazyClient(boto, "lambda", retries, region)),
        clock=clock,
    )
    if settings.opensearch_endpoint:
        deps.memory, deps.embedder = _memory(settings, boto, bedrock_client(), main)
    if settings.summary_model_id:
        from mneme.adapters.model_summarizer import ModelSummarizer

        summary_spec = ModelSpec(provider=settings.model_provider, model_id=settings.summary_model_id)
        deps.summarizer = ModelSummarizer(
            deps.models.client_for(summary_spec), settings.summary_model_id, provider=summary_spec.provider
        )
    return deps


def _openai_clients(settings: Settings, boto: Any, retries: Any) -> Any:
    """openai-compatible clients whose API key is read from Secrets Manager (the agent's secret, else the
    deployment's), through one lazily created client and Powertools' per-container cache."""
    from mneme.adapters.model_registry import OpenAIClients

    provider: list[Any] = []

    def keys_for(secret_arn: str | None) -> Any:
        from mneme.adapters.openai_model import SecretsManagerKeys, StaticKey

        arn = secret_arn or settings.openai_api_key_secret_arn
        if not arn:
            return StaticKey(None)
        if not provider:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider

            provider.append(SecretsProvider(boto3_client=LazyClient(boto, "secretsmanager", retries, settings.region)))
        return SecretsManagerKeys(provider[0], arn)

    return OpenAIClients(settings.openai_base_url_for, keys_for)


def _memory(settings: Settings, boto: Any, bedrock: Any, main: Any) -> tuple[Any, Any]:
    """The OpenSearch memory store (with its journal in the main table on Serverless) and the Bedrock embedder
    (both need ``opensearch_endpoint``)."""
    from mneme.adapters.bedrock_embeddings import BedrockEmbedder
    from mneme.adapters.memory_journal import ItemMemoryJournal
    from mneme.adapters.opensearch_memory import OpenSearchMemoryStore, opensearch_client
    from mneme.clock import SystemClock

    store = OpenSearchMemoryStore(
        opensearch_client(
            settings.opensearch_endpoint, settings.region, settings.opensearch_service, boto.get_credentials()
        ),
        index=settings.opensearch_index,
        dimension=settings.embedding_dimension,
        service=settings.opensearch_service,
        journal=ItemMemoryJournal(main, SystemClock()) if settings.opensearch_service == "aoss" else None,
    )
    embedder = BedrockEmbedder(
        bedrock,
        model_id=settings.embedding_model_id,
        dimension=settings.embedding_dimension,
        normalize=settings.embedding_normalize,
    )
    return store, embedder


def build_writer(settings: Settings, session: Any | None = None) -> WriterPorts:
    """The memory writer's ports only: the memory store and embedder, the audit table, the extraction models
    and the main table for the memory journal and the runs an extraction's usage is charged to (the writer
    reads no configuration or chats, and needs neither SQS, Step Functions nor Lambda clients)."""
    import botocore.session

    from mneme.adapters.audit_log import ItemAuditLog
    from mneme.adapters.bedrock_model import bedrock_client_config
    from mneme.adapters.dynamo_items import DynamoItemTable
    from mneme.adapters.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.model_registry import ModelClients
    from mneme.adapters.run_store import ItemRunStore
    from mneme.adapters.stores import retention_of
    from mneme.clock import SystemClock

    boto = session or botocore.session.Session()
    dynamodb = make_client(boto, "dynamodb", bedrock_client_config(max_attempts=3), settings.region)
    audit = ItemAuditLog(DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA))
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    store, embedder, models = None, None, None
    if settings.opensearch_endpoint:
        bedrock = make_client(boto, "bedrock-runtime", bedrock_client_config(max_attempts=4), settings.region)
        store, embedder = _memory(settings, boto, bedrock, main)
        retries = bedrock_client_config(max_attempts=3)
        models = ModelClients(lambda: bedrock, openai=_openai_clients(settings, boto, retries))
    runs = ItemRunStore(main, retention=retention_of(settings), clock=SystemClock())
    return WriterPorts(store, embedder, audit, SystemClock(), models, settings.price_table, runs)
