"""The composition root for AWS: the one place where the AWS clients are created, once per container.

They are botocore clients made by a botocore session: the same clients boto3 would make (``boto3.client`` is
``botocore.session.create_client``), without importing boto3 and, through it, s3transfer (~260 ms of a
Python 3.13 cold start, docs/performance.md). A boto3 ``Session`` may still be passed in (it has ``client``).
"""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.models.agent import ModelSpec
from mneme.ports import ModelClient
from mneme.settings import Settings


class ModelClients:
    """Model clients by provider, created on first use and reused for the container's life."""

    def __init__(self, bedrock: Any | None) -> None:
        self._bedrock_client = bedrock
        self._cache: dict[str, ModelClient] = {}

    def client_for(self, spec: ModelSpec) -> ModelClient:
        if spec.provider not in self._cache:
            self._cache[spec.provider] = self._create(spec.provider)
        return self._cache[spec.provider]

    def _create(self, provider: str) -> ModelClient:
        if provider == "offline":
            from mneme.adapters.offline_model import OfflineModel

            return OfflineModel()
        if provider == "bedrock" and self._bedrock_client is not None:
            from mneme.adapters.bedrock_model import BedrockModel

            return BedrockModel(self._bedrock_client())
        from mneme.errors import ModelUnavailable

        raise ModelUnavailable(f"the model provider {provider!r} is not available here")


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

    from mneme.adapters.audit_log import ItemAuditLog
    from mneme.adapters.bedrock_model import bedrock_client_config
    from mneme.adapters.chat_store import ItemChatStore
    from mneme.adapters.config_store import ItemConfigStore
    from mneme.adapters.dynamo_items import DynamoItemTable
    from mneme.adapters.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.lambda_tools import LambdaToolInvoker
    from mneme.adapters.run_store import ItemRunStore
    from mneme.adapters.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.sqs_queue import SqsMemoryQueue
    from mneme.clock import SystemClock

    boto = session or botocore.session.Session()
    region = settings.region
    retries = bedrock_client_config(max_attempts=3)
    dynamodb = make_client(boto, "dynamodb", retries, region)
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    clock = SystemClock()
    bedrock: list[Any] = []

    def bedrock_client() -> Any:
        if not bedrock:
            bedrock.append(make_client(boto, "bedrock-runtime", bedrock_client_config(max_attempts=4), region))
        return bedrock[0]

    deps = Deps(
        settings=settings,
        config=ItemConfigStore(main),
        chats=ItemChatStore(main, clock),
        runs=ItemRunStore(main),
        audit=ItemAuditLog(DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA)),
        models=ModelClients(bedrock_client),
        queue=SqsMemoryQueue(LazyClient(boto, "sqs", retries, region), settings.memory_queue_url),
        orchestrator=StepFunctionsOrchestrator(
            LazyClient(boto, "stepfunctions", retries, region), settings.state_machine_arn
        ),
        tools=LambdaToolInvoker(LazyClient(boto, "lambda", retries, region)),
        clock=clock,
    )
    if settings.opensearch_endpoint:
        from mneme.adapters.bedrock_embeddings import BedrockEmbedder
        from mneme.adapters.opensearch_memory import OpenSearchMemoryStore, opensearch_client

        deps.memory = OpenSearchMemoryStore(
            opensearch_client(
                settings.opensearch_endpoint,
                settings.region,
                settings.opensearch_service,
                boto.get_credentials(),
            ),
            index=settings.opensearch_index,
            dimension=settings.embedding_dimension,
            service=settings.opensearch_service,
        )
        deps.embedder = BedrockEmbedder(
            bedrock_client(),
            model_id=settings.embedding_model_id,
            dimension=settings.embedding_dimension,
            normalize=settings.embedding_normalize,
        )
    if settings.summary_model_id:
        from mneme.adapters.model_summarizer import ModelSummarizer

        summary_spec = ModelSpec(provider=settings.model_provider, model_id=settings.summary_model_id)
        deps.summarizer = ModelSummarizer(deps.models.client_for(summary_spec), settings.summary_model_id)
    return deps
