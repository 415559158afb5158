"""Deployment settings: one typed model, read from the environment once at cold start.

Every environment variable a function of ``template.yaml`` sets must be a field here (a template test
checks it). Field aliases are the environment variable names.
"""

import json
from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from mneme.errors import MnemeError
from mneme.models.budget import MAX_BUDGET_SECONDS, BudgetLimits
from mneme.models.memory import NamespaceRule
from mneme.models.pricing import ModelPrice, PriceTable
from mneme.spec_limits import (
    API_ANSWER_SECONDS,
    FAST_PATH_BUDGET_SECONDS,
    HAND_OFF_RESERVE_SECONDS,
    MCP_TOOLS_TTL_SECONDS,
    RUN_FUNCTION_TIMEOUT_SECONDS,
    SUMMARY_TRIGGER_MESSAGES,
    SUMMARY_TRIGGER_TOKENS,
)

RetentionDays = Annotated[int, Field(ge=0, le=36_500)]


class SettingsError(MnemeError):
    """The function's configuration is invalid: raised at cold start, never mid-request."""


class Settings(BaseModel, defer_build=True):
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    mode: Literal["aws", "local"] = Field("aws", alias="MNEME_MODE")
    region: str = Field("us-east-1", alias="AWS_REGION")

    # DynamoDB
    table_name: str = Field("mneme", alias="MNEME_TABLE")
    audit_table_name: str = Field("mneme-audit", alias="MNEME_AUDIT_TABLE")

    # queues and orchestration
    memory_queue_url: str = Field("", alias="MNEME_MEMORY_QUEUE_URL")
    memory_dlq_url: str = Field("", alias="MNEME_MEMORY_DLQ_URL")
    privacy_queue_url: str = Field("", alias="MNEME_PRIVACY_QUEUE_URL")
    state_machine_arn: str = Field("", alias="MNEME_STATE_MACHINE_ARN")

    # memory store
    opensearch_endpoint: str = Field("", alias="MNEME_OPENSEARCH_ENDPOINT")
    opensearch_service: Literal["aoss", "es"] = Field("aoss", alias="MNEME_OPENSEARCH_SERVICE")
    opensearch_index: str = Field("mneme-memory", alias="MNEME_OPENSEARCH_INDEX")
    # the memory store the deployment chose (template MemoryBackend); s3vectors names its bucket and index
    memory_backend: Literal["opensearch", "s3vectors"] = Field("opensearch", alias="MNEME_MEMORY_BACKEND")
    s3vectors_bucket: str = Field("", alias="MNEME_S3VECTORS_BUCKET")
    s3vectors_index: str = Field("", alias="MNEME_S3VECTORS_INDEX")

    # models
    model_provider: Literal["bedrock", "offline"] = Field("bedrock", alias="MNEME_MODEL_PROVIDER")
    summary_model_id: str = Field("", alias="MNEME_SUMMARY_MODEL_ID")
    embedding_provider: Literal["bedrock", "local"] = Field("bedrock", alias="MNEME_EMBEDDING_PROVIDER")
    embedding_model_id: str = Field("amazon.titan-embed-text-v2:0", alias="MNEME_EMBEDDING_MODEL_ID")
    embedding_dimension: Annotated[int, Field(ge=8, le=16_000)] = Field(1024, alias="MNEME_EMBEDDING_DIMENSION")
    embedding_normalize: bool = Field(True, alias="MNEME_EMBEDDING_NORMALIZE")
    #: a Bedrock reranking model scoring memory search's best candidates ("": none; mneme.memory.rerank)
    memory_rerank_model: Literal["", "amazon.rerank-v1:0", "cohere.rerank-v3-5:0"] = Field(
        "", alias="MNEME_MEMORY_RERANK_MODEL"
    )

    # identity: the group (``cognito:groups``) whose members are admins, matched by exact name
    admin_group: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[^\s\[\]\",]+$")] = Field(
        "admin", alias="MNEME_ADMIN_GROUP"
    )

    # behaviour
    # the fast path's blocking calls end within this; with the hand-off reserve the API answers in 25 s
    fast_path_budget_seconds: Annotated[float, Field(gt=0, le=API_ANSWER_SECONDS - HAND_OFF_RESERVE_SECONDS)] = Field(
        FAST_PATH_BUDGET_SECONDS, alias="MNEME_FAST_PATH_BUDGET_SECONDS"
    )
    # the run function's timeout: a state machine step's model calls get what fits inside it
    run_function_timeout_seconds: Annotated[float, Field(ge=60, le=900)] = Field(
        RUN_FUNCTION_TIMEOUT_SECONDS, alias="MNEME_RUN_FUNCTION_TIMEOUT"
    )
    summary_trigger_tokens: Annotated[int, Field(ge=100)] = Field(
        SUMMARY_TRIGGER_TOKENS, alias="MNEME_SUMMARY_TRIGGER_TOKENS"
    )
    summary_trigger_messages: Annotated[int, Field(ge=2)] = Field(
        SUMMARY_TRIGGER_MESSAGES, alias="MNEME_SUMMARY_TRIGGER_MESSAGES"
    )
    recency_decay: Annotated[float, Field(ge=0, le=10)] = Field(0.05, alias="MNEME_RECENCY_DECAY")
    namespace_rules: tuple[NamespaceRule, ...] = Field((), alias="MNEME_NAMESPACE_RULES")
    # the openai-compatible provider: the default base URL, the other base URLs agents may name (exact
    # matches: the API key is sent only there), the deployment's key secret (AWS) or the key itself (local)
    openai_base_url: str = Field("", alias="MNEME_OPENAI_BASE_URL")
    openai_endpoints: tuple[str, ...] = Field((), alias="MNEME_OPENAI_ENDPOINTS")
    openai_api_key_secret_arn: str = Field("", alias="MNEME_OPENAI_API_KEY_SECRET_ARN")
    #: every key secret an agent's ``model.api_key_secret_arn`` may name (``OpenAIApiKeySecretArns``, exact
    #: ARNs, comma-separated; the default one above is allowed too): any other is refused at save and fetch
    openai_api_key_secret_arns: tuple[str, ...] = Field((), alias="MNEME_OPENAI_API_KEY_SECRET_ARNS")
    openai_api_key: SecretStr | None = Field(None, alias="MNEME_OPENAI_API_KEY")
    #: openai-compatible base URLs may be http and reach loopback / private / link-local addresses (local mode,
    #: for a model server on this machine); never on AWS by default (issue 31.8, mneme.adapters.models.egress)
    model_allow_private_networks: bool = Field(False, alias="MNEME_MODEL_ALLOW_PRIVATE_NETWORKS")
    # OpenTelemetry spans (mneme.telemetry): off by default; message content only when opted in
    otel_enabled: bool = Field(False, alias="MNEME_OTEL_ENABLED")
    otel_capture_content: bool = Field(False, alias="MNEME_OTEL_CAPTURE_CONTENT")
    # cost: per-model prices (USD per 1k tokens) over the defaults of mneme.models.pricing
    model_prices: dict[str, ModelPrice] = Field(default_factory=dict, alias="MNEME_MODEL_PRICES")

    # run trees (issue 15.4): the budget of a tree, and its ceiling (a request or agent may only lower it)
    budget_max_model_calls: Annotated[int, Field(ge=1, le=100_000)] = Field(500, alias="MNEME_BUDGET_MAX_MODEL_CALLS")
    budget_max_tokens: Annotated[int, Field(ge=1, le=1_000_000_000)] = Field(2_000_000, alias="MNEME_BUDGET_MAX_TOKENS")
    budget_max_runs: Annotated[int, Field(ge=1, le=1_000)] = Field(50, alias="MNEME_BUDGET_MAX_RUNS")
    budget_max_seconds: Annotated[int, Field(ge=1, le=MAX_BUDGET_SECONDS)] = Field(
        3600, alias="MNEME_BUDGET_MAX_SECONDS"
    )
    #: delegated runs of one tree that may be unfinished at once (the Map state runs at most 10 at a time)
    max_concurrent_delegations: Annotated[int, Field(ge=1, le=1_000)] = Field(
        10, alias="MNEME_MAX_CONCURRENT_DELEGATIONS"
    )
    #: runs a user may start per minute over the API (0: no limit)
    runs_per_user_per_minute: Annotated[int, Field(ge=0, le=100_000)] = Field(
        60, alias="MNEME_RUNS_PER_USER_PER_MINUTE"
    )

    # live runs (issue 15.2): the WebSocket API's connection endpoint (https://<api>.execute-api.../<stage>),
    # empty when there is none; the authorizer of its $connect checks tokens of this issuer and audience
    websocket_endpoint: str = Field("", alias="MNEME_WEBSOCKET_ENDPOINT")
    jwt_issuer: str = Field("", alias="MNEME_JWT_ISSUER")
    jwt_audience: str = Field("", alias="MNEME_JWT_AUDIENCE")  # comma-separated client ids

    # retention in days (DynamoDB TTL on the main table; 0 keeps the data forever)
    retention_days_chats: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_CHATS")
    retention_days_runs: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_RUNS")
    retention_days_requests: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_REQUESTS")
    # memory entries by class (written as the entry's expiry; 0 keeps them forever)
    retention_days_memory_episodic: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_MEMORY_EPISODIC")
    retention_days_memory_semantic: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_MEMORY_SEMANTIC")
    retention_days_memory_preference: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_MEMORY_PREFERENCE")
    retention_days_memory_procedural: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_MEMORY_PROCEDURAL")
    retention_days_memory_document: RetentionDays = Field(0, alias="MNEME_RETENTION_DAYS_MEMORY_DOCUMENT")

    # privacy: exports (the archive's bucket, how long it is kept, how long a download link is valid)
    export_bucket: str = Field("", alias="MNEME_EXPORT_BUCKET")
    export_retention_days: Annotated[int, Field(ge=1, le=365)] = Field(7, alias="MNEME_EXPORT_RETENTION_DAYS")
    export_url_seconds: Annotated[int, Field(ge=60, le=43_200)] = Field(900, alias="MNEME_EXPORT_URL_SECONDS")

    # MCP servers of agents (issue 20): secrets live under <prefix><owner>/ in Secrets Manager
    mcp_secret_prefix: str = Field("mneme/mcp/", alias="MNEME_MCP_SECRET_PREFIX")
    mcp_tools_ttl_seconds: Annotated[float, Field(ge=0, le=3600)] = Field(
        MCP_TOOLS_TTL_SECONDS, alias="MNEME_MCP_TOOLS_TTL_SECONDS"
    )
    #: MCP URLs may name loopback / private / link-local addresses (local mode); never on AWS by default
    mcp_allow_private_networks: bool = Field(False, alias="MNEME_MCP_ALLOW_PRIVATE_NETWORKS")

    @model_validator(mode="after")
    def _backend_named(self) -> Self:
        """``s3vectors`` needs its bucket and index (the template passes both): refused at start without them,
        rather than run every request without memory."""
        if self.memory_backend == "s3vectors" and not (self.s3vectors_bucket and self.s3vectors_index):
            raise ValueError("MNEME_MEMORY_BACKEND=s3vectors needs MNEME_S3VECTORS_BUCKET and MNEME_S3VECTORS_INDEX")
        return self

    @property
    def memory_configured(self) -> bool:
        """A memory store is deployed: an OpenSearch endpoint, or the S3 Vectors index."""
        return self.memory_backend == "s3vectors" or bool(self.opensearch_endpoint)

    @field_validator("namespace_rules", mode="before")
    @classmethod
    def _rules_json(cls, value: object) -> object:
        if isinstance(value, str):
            return json.loads(value) if value.strip() else ()
        return value

    @field_validator("model_prices", mode="before")
    @classmethod
    def _prices_json(cls, value: object) -> object:
        if isinstance(value, str):
            return json.loads(value) if value.strip() else {}
        return value

    @field_validator("openai_endpoints", "openai_api_key_secret_arns", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @cached_property
    def price_table(self) -> PriceTable:
        return PriceTable(self.model_prices)

    def openai_base_url_for(self, endpoint: str | None) -> str | None:
        """The base URL an openai-compatible agent calls: its own ``endpoint`` when the deployment allows it
        (exactly), else None; without an endpoint, the deployment's default (None when there is none)."""
        allowed = {url.rstrip("/") for url in (self.openai_base_url, *self.openai_endpoints) if url}
        if not endpoint:
            return self.openai_base_url.rstrip("/") or None
        wanted = endpoint.strip().rstrip("/")
        return wanted if wanted in allowed else None

    def openai_key_secret_allowed(self, secret_arn: str) -> bool:
        """Whether an agent may name ``secret_arn`` as its API key (issue 31.1): only a secret of the
        deployment's allow list, exactly — never another secret the function's role could read (another
        user's MCP credentials), whose value would be sent to the agent's endpoint."""
        allowed = {arn.strip() for arn in (self.openai_api_key_secret_arn, *self.openai_api_key_secret_arns)}
        return bool(secret_arn) and secret_arn in allowed - {""}

    @property
    def default_budget(self) -> BudgetLimits:
        """The budget of a run tree whose request and agent name none (field by field)."""
        return BudgetLimits(
            max_model_calls=self.budget_max_model_calls,
            max_tokens=self.budget_max_tokens,
            max_runs=self.budget_max_runs,
            max_seconds=self.budget_max_seconds,
        )

    @property
    def jwt_audiences(self) -> tuple[str, ...]:
        return tuple(a.strip() for a in self.jwt_audience.split(",") if a.strip())

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Self:
        """Build and validate the settings from an environment mapping (call once, at cold start)."""
        try:
            return cls.model_validate({k: v for k, v in environ.items() if k in _ALIASES})
        except (ValidationError, json.JSONDecodeError) as exc:
            raise SettingsError(f"invalid configuration: {exc}") from exc


_ALIASES = frozenset(field.alias for field in Settings.model_fields.values() if field.alias)


def env_names() -> frozenset[str]:
    """The environment variable names the settings read."""
    return _ALIASES
