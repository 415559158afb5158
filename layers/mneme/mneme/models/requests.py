"""The request contracts of mneme: the bodies of the HTTP API, the EventBridge trigger and the context
preview, validated at the edge and handed to the engine's use cases as they are.

Extra fields are ignored: a ``user_id`` or ``owner`` in a body never counts (the user comes from the token).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from mneme.errors import PayloadTooLarge
from mneme.limits import (
    MAX_DOCUMENT_CHARS,
    MAX_NAMESPACE_CHARS,
    MAX_NAMESPACES_PER_SEARCH,
    MAX_QUERY_CHARS,
    MAX_REFERENCE_CHARS,
    MAX_RUN_INPUT_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TTL_SECONDS,
    MIN_TTL_SECONDS,
)
from mneme.models.agent import (
    ExternalTool,
    InternalTool,
    ModelSpec,
    ToolApprovalMode,
)
from mneme.models.common import Identifier, Label, LongText, ShortText, Slug, TopK
from mneme.models.policy import MemoryPolicy
from mneme.models.run import ToolApproval

#: the model providers an agent may be saved with (SPEC §2 also names ``openai-compatible``, not built yet)
AVAILABLE_PROVIDERS = frozenset({"bedrock", "offline"})


class MemoryOverride(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = None
    top_k: Annotated[int, Field(ge=1, le=20)] | None = None


class RunRequest(BaseModel):
    """``{agent_id, task_id?, chat_id?, project_id?, input, tool_approval?, memory?}``; a ``user_id`` in the
    body is ignored (the user comes from the token)."""

    model_config = ConfigDict(extra="ignore")

    agent_id: Slug
    task_id: Slug | None = None
    chat_id: Identifier | None = None
    project_id: Identifier | None = None
    session_id: Identifier | None = None
    input: Annotated[str, Field(min_length=1)]
    tool_approval: ToolApproval | None = None
    memory: MemoryOverride | None = None

    def check_size(self) -> RunRequest:
        """Raise PayloadTooLarge (413) when the input is over the limit of SPEC §12."""
        if len(self.input) > MAX_RUN_INPUT_CHARS:
            raise PayloadTooLarge(
                f"input has {len(self.input)} characters; the limit is {MAX_RUN_INPUT_CHARS}", field="input"
            )
        return self


Reference = Annotated[str, StringConstraints(min_length=1, max_length=MAX_REFERENCE_CHARS)]
NamespaceText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAMESPACE_CHARS)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class AgentBody(_Body):
    label: Label
    description: ShortText = ""
    model: ModelSpec = ModelSpec()
    tools: list[InternalTool] = []
    external_tools: Annotated[list[ExternalTool], Field(max_length=64)] = []
    skills: Annotated[list[Slug], Field(max_length=64)] = []
    delegates: Annotated[list[Reference], Field(max_length=64)] = []
    memory_policy: MemoryPolicy = MemoryPolicy()
    tool_approval_default: ToolApprovalMode = "granted"
    default_task_id: Slug | None = None
    is_global: bool = Field(False, alias="global", description="admins only: a global agent usable by all")

    @field_validator("model")
    @classmethod
    def _provider_available(cls, model: ModelSpec) -> ModelSpec:
        if model.provider not in AVAILABLE_PROVIDERS:
            available = ", ".join(sorted(AVAILABLE_PROVIDERS))
            raise ValueError(f"model provider {model.provider!r} is not available in this release (use {available})")
        return model


class TaskBody(_Body):
    name: Annotated[str, StringConstraints(max_length=200)] = ""
    context_prompt: LongText = ""
    memory_policy: MemoryPolicy = MemoryPolicy()


class SkillBody(_Body):
    description: Annotated[str, StringConstraints(min_length=1, max_length=1024)]
    when_to_use: ShortText | None = None
    content: LongText
    is_global: bool = Field(False, alias="global", description="admins only: a global skill")


class SearchBody(_Body):
    query: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS)]
    namespaces: Annotated[list[NamespaceText], Field(max_length=MAX_NAMESPACES_PER_SEARCH)] | None = None
    top_k: TopK = 5


class DocumentBody(_Body):
    namespace: NamespaceText
    content: Annotated[str, StringConstraints(min_length=1, max_length=MAX_DOCUMENT_CHARS)]
    tags: Annotated[
        list[Annotated[str, StringConstraints(min_length=1, max_length=MAX_TAG_CHARS)]], Field(max_length=MAX_TAGS)
    ] = []
    ttl_seconds: Annotated[int, Field(ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS)] | None = None


class ApprovalBody(_Body):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    decision: Literal["once", "always", "deny"]
