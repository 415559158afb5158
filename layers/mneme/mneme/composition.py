"""The composition root for AWS: the one place where the AWS clients are created, once per container.

They are botocore clients made by a botocore session: the same clients boto3 would make (``boto3.client`` is
``botocore.session.create_client``), without importing boto3 and, through it, s3transfer (~260 ms of a
Python 3.13 cold start, docs/performance.md). A boto3 ``Session`` may still be passed in (it has ``client``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mneme.engine.deps import Deps
from mneme.models.agent import ModelSpec
from mneme.settings import Settings

if TYPE_CHECKING:  # the writer function's ports: the run function, which imports this module, never builds them
    from mneme.engine.memory_io.writer_ports import WriterPorts


def make_client(session: Any, service: str, config: Any, region: str, **options: Any) -> Any:
    """A client of ``service`` from a botocore session (``create_client``) or a boto3 one (``client``)."""
    create = getattr(session, "create_client", None)
    if create is not None:
        return create(service, region_name=region, config=config, **options)
    return session.client(service, config=config, **options)


class LazyClient:
    """An AWS client created on first use (then reused): a cold start pays only for the clients it calls.

    SQS (auto-write), Step Functions (hand-off), Lambda (external tools) and Secrets Manager (MCP servers'
    credentials) are not needed by most
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
    """Deps over real AWS services (DynamoDB, SQS, Step Functions, Lambda, Bedrock, OpenSearch, Secrets Manager,
    S3 for exports) and the agents' MCP servers."""
    from mneme.adapters.aws.botocore_session import aws_session
    from mneme.adapters.aws.lambda_tools import LambdaToolInvoker
    from mneme.adapters.aws.secrets_manager import SecretsManagerStore
    from mneme.adapters.aws.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.aws.sqs_queue import SqsMemoryQueue
    from mneme.adapters.aws.timed_calls import EMBEDDING_READ_TIMEOUT_SECONDS, TimedClients, service_config
    from mneme.adapters.dynamo.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.dynamo.stores import retention_of, stores_over
    from mneme.adapters.dynamo.table import DynamoItemTable
    from mneme.adapters.mcp.client import SdkMcpToolSource
    from mneme.adapters.models.bedrock import bedrock_client_config
    from mneme.adapters.models.registry import ModelClients
    from mneme.clock import SystemClock
    from mneme.spec_limits import MAX_EXTERNAL_TOOL_SECONDS

    boto = session or aws_session()
    region = settings.region
    retries = service_config()
    if settings.otel_enabled:
        from mneme import telemetry

        telemetry.configure(enabled=True, capture_content=settings.otel_capture_content)
    dynamodb = make_client(boto, "dynamodb", retries, region)
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    audit = DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA)
    clock = SystemClock()
    bedrock: list[Any] = []

    def bedrock_client() -> Any:
        """Embeddings (and a model call given no timeout): short reads, one retry."""
        if not bedrock:
            config = bedrock_client_config(max_attempts=2, read_timeout=EMBEDDING_READ_TIMEOUT_SECONDS)
            bedrock.append(make_client(boto, "bedrock-runtime", config, region))
        return bedrock[0]

    def timed(service: str) -> TimedClients:
        """Clients whose read timeout fits the run's budget (model calls, external tools)."""
        return TimedClients(lambda config: make_client(boto, service, config, region))

    retention = retention_of(settings)
    sqs = LazyClient(boto, "sqs", retries, region)
    deps = Deps(
        settings=settings,
        **stores_over(main, audit, clock, retention).ports(),
        models=ModelClients(
            bedrock_client, openai=_openai_clients(settings, boto, retries), bedrock_timed=timed("bedrock-runtime")
        ),
        queue=SqsMemoryQueue(sqs, settings.memory_queue_url),
        orchestrator=StepFunctionsOrchestrator(
            LazyClient(boto, "stepfunctions", retries, region), settings.state_machine_arn
        ),
        tools=LambdaToolInvoker(
            LazyClient(boto, "lambda", service_config(read_timeout=MAX_EXTERNAL_TOOL_SECONDS, max_attempts=1), region),
            timed=timed("lambda"),
        ),
        clock=clock,
        mcp=SdkMcpToolSource(allow_private_networks=settings.mcp_allow_private_networks),
        secrets=SecretsManagerStore(LazyClient(boto, "secretsmanager", retries, region), settings.mcp_secret_prefix),
        **_privacy_ports(settings, boto, retries, sqs),
    )
    if settings.memory_configured:
        store, deps.embedder = _memory(settings, boto, bedrock_client(), main)
        deps.memory, deps.revisions = revisioned(store, main, clock)
        deps.reranker = _reranker(settings, LazyClient(boto, "bedrock-agent-runtime", retries, region))
    if settings.websocket_endpoint:  # the WebSocket API: live runs pushed to its connections
        from mneme.adapters.aws.websocket_hub import ApiGatewayPusher, WebSocketHub

        management = make_client(
            boto, "apigatewaymanagementapi", retries, region, endpoint_url=settings.websocket_endpoint
        )
        hub = WebSocketHub(main, ApiGatewayPusher(management), clock)
        deps.live, deps.sockets = hub, hub
    if settings.summary_model_id:
        from mneme.adapters.models.summarizer import ModelSummarizer

        summary_spec = ModelSpec(provider=settings.model_provider, model_id=settings.summary_model_id)
        deps.summarizer = ModelSummarizer(
            deps.models.client_for(summary_spec), settings.summary_model_id, provider=summary_spec.provider
        )
    return deps


def _openai_clients(settings: Settings, boto: Any, retries: Any) -> Any:
    """openai-compatible clients whose API key is read from Secrets Manager (the agent's secret, else the
    deployment's), through one lazily created client and Powertools' per-container cache. An agent's secret
    outside the deployment's allow list is never fetched (issue 31.1): the model call is refused."""
    from mneme.adapters.models.registry import OpenAIClients

    provider: list[Any] = []

    def keys_for(secret_arn: str | None) -> Any:
        from mneme.adapters.models.openai import SecretsManagerKeys, StaticKey
        from mneme.errors import ModelRequestRejected

        if secret_arn and not settings.openai_key_secret_allowed(secret_arn):
            raise ModelRequestRejected(
                "the agent's model.api_key_secret_arn is not one of this deployment's model API key secrets "
                "(OpenAIApiKeySecretArns); it is not read",
                details={"secret": secret_arn},
            )
        arn = secret_arn or settings.openai_api_key_secret_arn
        if not arn:
            return StaticKey(None)
        if not provider:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider

            provider.append(SecretsProvider(boto3_client=LazyClient(boto, "secretsmanager", retries, settings.region)))
        return SecretsManagerKeys(provider[0], arn)

    return OpenAIClients(
        settings.openai_base_url_for, keys_for, allow_private_networks=settings.model_allow_private_networks
    )


def _privacy_ports(settings: Settings, boto: Any, retries: Any, sqs: Any) -> dict[str, Any]:
    """Exports (S3), the memory writer's dead letters and the privacy jobs' queue (SQS)."""
    from botocore.config import Config

    from mneme.adapters.aws.s3_exports import S3ExportStorage
    from mneme.adapters.aws.sqs_privacy import SqsDeadLetters, SqsPrivacyJobs

    s3_config = retries.merge(Config(signature_version="s3v4", s3={"addressing_style": "virtual"}))
    return {
        "exports": S3ExportStorage(LazyClient(boto, "s3", s3_config, settings.region), settings.export_bucket),
        "dead_letters": SqsDeadLetters(sqs, settings.memory_dlq_url),
        "privacy_jobs": SqsPrivacyJobs(sqs, settings.privacy_queue_url),
    }


def _memory(settings: Settings, boto: Any, bedrock: Any, main: Any) -> tuple[Any, Any]:
    """The memory store the deployment chose (``MNEME_MEMORY_BACKEND``) and the Bedrock embedder."""
    from mneme.adapters.models.bedrock_embeddings import BedrockEmbedder

    embedder = BedrockEmbedder(
        bedrock,
        model_id=settings.embedding_model_id,
        dimension=settings.embedding_dimension,
        normalize=settings.embedding_normalize,
    )
    return memory_store(settings, boto, main), embedder


def _reranker(settings: Settings, client: Any) -> Any:
    """The memory search's second stage the deployment chose (``MNEME_MEMORY_RERANK_MODEL``), or None."""
    if not settings.memory_rerank_model:
        return None
    from mneme.adapters.models.bedrock_rerank import BedrockReranker

    return BedrockReranker(client, model_id=settings.memory_rerank_model, region=settings.region)


def memory_store(settings: Settings, boto: Any, main: Any) -> Any:
    """S3 Vectors (its bucket and index) or OpenSearch (with its journal in the main table on Serverless)."""
    from mneme.adapters.aws.timed_calls import service_config

    if settings.memory_backend == "s3vectors":
        from mneme.adapters.s3vectors.store import S3VectorsMemoryStore

        return S3VectorsMemoryStore(
            make_client(boto, "s3vectors", service_config(), settings.region),
            bucket=settings.s3vectors_bucket,
            index=settings.s3vectors_index,
            dimension=settings.embedding_dimension,
        )
    from mneme.adapters.dynamo.memory_journal import ItemMemoryJournal
    from mneme.adapters.opensearch.store import OpenSearchMemoryStore, opensearch_client
    from mneme.clock import SystemClock

    return OpenSearchMemoryStore(
        opensearch_client(
            settings.opensearch_endpoint, settings.region, settings.opensearch_service, boto.get_credentials()
        ),
        index=settings.opensearch_index,
        dimension=settings.embedding_dimension,
        service=settings.opensearch_service,
        journal=ItemMemoryJournal(main, SystemClock()) if settings.opensearch_service == "aoss" else None,
    )


def revisioned(store: Any, main: Any, clock: Any) -> tuple[Any, Any]:
    """The store keeping a revision of every change (issue 35.3), the revisions in the main table."""
    from mneme.adapters.dynamo.memory_revisions import ItemMemoryRevisions
    from mneme.engine.memory_io.revisions import RevisionedMemoryStore

    revisions = ItemMemoryRevisions(main)
    return RevisionedMemoryStore(store, revisions, clock), revisions


def build_writer(settings: Settings, session: Any | None = None) -> WriterPorts:
    """The memory writer's ports only: the memory store and embedder, the audit table, the extraction models
    and the main table for the memory journal and the runs an extraction's usage is charged to (the writer
    reads no configuration or chats, and needs neither SQS, Step Functions nor Lambda clients)."""
    from mneme.adapters.aws.botocore_session import aws_session
    from mneme.adapters.aws.timed_calls import EMBEDDING_READ_TIMEOUT_SECONDS, service_config
    from mneme.adapters.dynamo.audit_log import ItemAuditLog
    from mneme.adapters.dynamo.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.dynamo.privacy_ledger import ItemPrivacyLedger
    from mneme.adapters.dynamo.run_store import ItemRunStore
    from mneme.adapters.dynamo.stores import retention_of
    from mneme.adapters.dynamo.table import DynamoItemTable
    from mneme.adapters.models.bedrock import bedrock_client_config
    from mneme.adapters.models.registry import ModelClients
    from mneme.clock import SystemClock
    from mneme.engine.memory_io.writer_ports import WriterPorts
    from mneme.memory.entry_retention import memory_retention

    boto = session or aws_session()
    dynamodb = make_client(boto, "dynamodb", service_config(), settings.region)
    audit = ItemAuditLog(DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA))
    clock = SystemClock()
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    ledger = ItemPrivacyLedger(main, clock)  # the erasure tombstones: a write of an erased user is dropped
    store, embedder, models = None, None, None
    if settings.memory_configured:
        config = bedrock_client_config(max_attempts=4, read_timeout=EMBEDDING_READ_TIMEOUT_SECONDS)
        bedrock = make_client(boto, "bedrock-runtime", config, settings.region)
        store, embedder = _memory(settings, boto, bedrock, main)
        store, _ = revisioned(store, main, clock)
        retries = bedrock_client_config(max_attempts=3)  # extraction calls: the model's default read timeout
        extraction = make_client(boto, "bedrock-runtime", retries, settings.region)
        models = ModelClients(lambda: extraction, openai=_openai_clients(settings, boto, retries))
    runs = ItemRunStore(main, retention=retention_of(settings), clock=clock)
    return WriterPorts(
        store, embedder, audit, clock, models, settings.price_table, runs, memory_retention(settings), ledger
    )


def build_verifier(settings: Settings) -> Any:
    """The WebSocket ``$connect`` authorizer's JWT verifier: the issuer's JWKS over HTTPS, cached."""
    from mneme.adapters.aws.jwt_verifier import JwtVerifier, jwks_client

    return JwtVerifier(settings.jwt_issuer, settings.jwt_audiences, jwks_client(settings.jwt_issuer))
