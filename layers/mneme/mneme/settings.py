"""Deployment settings: one typed model, read from the environment once at cold start.

Every environment variable a function of ``template.yaml`` sets must be a field here (a template test
checks it). Field aliases are the environment variable names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mneme.errors import MnemeError
from mneme.limits import FAST_PATH_BUDGET_SECONDS, SUMMARY_TRIGGER_MESSAGES, SUMMARY_TRIGGER_TOKENS
from mneme.models.memory import NamespaceRule

RetentionDays = Annotated[int, Field(ge=0, le=36_500)]


class SettingsError(MnemeError):
    """The function's configuration is invalid: raised at cold start, never mid-request."""


class Settings(BaseModel):
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

    # models
    model_provider: Literal["bedrock", "offline"] = Field("bedrock", alias="MNEME_MODEL_PROVIDER")
    summary_model_id: str = Field("", alias="MNEME_SUMMARY_MODEL_ID")
    embedding_provider: Literal["bedrock", "local"] = Field("bedrock", alias="MNEME_EMBEDDING_PROVIDER")
    embedding_model_id: str = Field("amazon.titan-embed-text-v2:0", alias="MNEME_EMBEDDING_MODEL_ID")
    embedding_dimension: Annotated[int, Field(ge=8, le=16_000)] = Field(1024, alias="MNEME_EMBEDDING_DIMENSION")
    embedding_normalize: bool = Field(True, alias="MNEME_EMBEDDING_NORMALIZE")

    # behaviour
    fast_path_budget_seconds: Annotated[float, Field(gt=0, le=28)] = Field(
        FAST_PATH_BUDGET_SECONDS, alias="MNEME_FAST_PATH_BUDGET_SECONDS"
    )
    summary_trigger_tokens: Annotated[int, Field(ge=100)] = Field(
        SUMMARY_TRIGGER_TOKENS, alias="MNEME_SUMMARY_TRIGGER_TOKENS"
    )
    summary_trigger_messages: Annotated[int, Field(ge=2)] = Field(
        SUMMARY_TRIGGER_MESSAGES, alias="MNEME_SUMMARY_TRIGGER_MESSAGES"
    )
    recency_decay: Annotated[float, Field(ge=0, le=10)] = Field(0.05, alias="MNEME_RECENCY_DECAY")
    namespace_rules: tuple[NamespaceRule, ...] = Field((), alias="MNEME_NAMESPACE_RULES")

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

    @field_validator("namespace_rules", mode="before")
    @classmethod
    def _rules_json(cls, value: object) -> object:
        if isinstance(value, str):
            return json.loads(value) if value.strip() else ()
        return value

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """Build and validate the settings from an environment mapping (call once, at cold start)."""
        try:
            return cls.model_validate({k: v for k, v in environ.items() if k in _ALIASES})
        except (ValidationError, json.JSONDecodeError) as exc:
            raise SettingsError(f"invalid configuration: {exc}") from exc


_ALIASES = frozenset(field.alias for field in Settings.model_fields.values() if field.alias)


def env_names() -> frozenset[str]:
    """The environment variable names the settings read."""
    return _ALIASES
