"""Request bodies of the HTTP API.

Extra fields are ignored: a ``user_id`` or ``owner`` in a body never counts.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from mneme.models.agent import (
    ExternalTool,
    InternalTool,
    ModelSpec,
    ToolApprovalMode,
)
from mneme.models.common import Label, LongText, ShortText, Slug, TopK
from mneme.models.policy import MemoryPolicy

Reference = Annotated[str, StringConstraints(min_length=1, max_length=128)]
NamespaceText = Annotated[str, StringConstraints(min_length=1, max_length=512)]


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
    query: Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
    namespaces: Annotated[list[NamespaceText], Field(max_length=32)] | None = None
    top_k: TopK = 5


class DocumentBody(_Body):
    namespace: NamespaceText
    content: Annotated[str, StringConstraints(min_length=1, max_length=50_000)]
    tags: Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=64)]], Field(max_length=32)] = []
    ttl_seconds: Annotated[int, Field(ge=60, le=10 * 365 * 24 * 3600)] | None = None


class ApprovalBody(_Body):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    decision: Literal["once", "always", "deny"]


def dump(model: BaseModel, **extra: Any) -> dict[str, Any]:
    return {**model.model_dump(mode="json", exclude_none=False), **extra}
