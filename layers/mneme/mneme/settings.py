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
from mneme.limits import (
    API_ANSWER_SECONDS,
    FAST_PATH_BUDGET_SECONDS,
    HAND_OFF_RESERVE_SECONDS,
    RUN_FUNCTION_TIMEOUT_SECONDS,
    SUMMARY_TRIGGER_MESSAGES,
    SUMMARY_TRIGGER_TOKENS,
)
from mneme.models.memory import NamespaceRule


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
