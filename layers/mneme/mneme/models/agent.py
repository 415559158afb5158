"""Agents, tasks, skills and external tools (SPEC §2, §8)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from mneme.limits import SKILL_DESCRIPTION_MAX
from mneme.models.budget import Budget
from mneme.models.common import Identifier, Label, LongText, ShortText, Slug
from mneme.models.policy import MemoryPolicy

InternalTool = Literal["memory-search", "memory-write", "memory-update", "memory-delete", "delegate-to-agent"]
INTERNAL_TOOLS: tuple[str, ...] = (
    "memory-search",
    "memory-write",
    "memory-update",
    "memory-delete",
    "delegate-to-agent",
)
ToolApprovalMode = Literal["granted", "prompt", "denied"]
Provider = Literal["bedrock", "offline", "openai-compatible"]
ToolName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
#: what a sub-agent sees of its parent's conversation (issue 15.5): ``full`` (the history without system
#: messages, SPEC §6), ``isolated`` (only the delegation input) or ``tail:N`` (the last N messages)
CONTEXT_MODE_PATTERN = r"^(full|isolated|tail:[1-9][0-9]{0,3})$"
ContextMode = Annotated[str, StringConstraints(pattern=CONTEXT_MODE_PATTERN)]
DelegateReference = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class DelegateEntry(BaseModel):
    """A ``delegates`` entry that also bounds the context the sub-agent gets (a bare string means ``full``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: DelegateReference
    context: ContextMode = "full"


class InferenceSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_tokens: Annotated[int, Field(ge=1, le=200_000)] | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    stop_sequences: Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=8)] = []


class ModelSpec(BaseModel):
    model_config = ConfigDict(extra="ignore", protected_namespaces=())

    provider: Provider = "offline"
    model_id: Annotated[str, StringConstraints(min_length=1, max_length=256)] = "offline"
    endpoint: Annotated[str, StringConstraints(max_length=2048)] | None = None  # openai-compatible only
    inference: InferenceSettings = InferenceSettings()


class ExternalTool(BaseModel):
    """A tool implemented as a Lambda function (SPEC §8)."""

    model_config = ConfigDict(extra="ignore")

    name: ToolName
    description: Annotated[str, StringConstraints(min_length=1, max_length=SKILL_DESCRIPTION_MAX)]
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    function_arn: Annotated[
        str,
        StringConstraints(
            pattern=r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$"
        ),
    ]

    @field_validator("name")
    @classmethod
    def _not_internal(cls, value: str) -> str:
        if value in INTERNAL_TOOLS or value == "activate_skill":
            raise ValueError(f"{value!r} is the name of an internal tool")
        return value

    @field_validator("input_schema")
    @classmethod
    def _schema_is_object(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("type", "object") != "object":
            raise ValueError("input_schema must describe a JSON object (type: object)")
        return value


class Agent(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent_id: Slug
    owner: str = ""  # the owning user id, or GLOBAL_OWNER; set by the server, never by a body
    label: Label
    description: ShortText = ""
    model: ModelSpec = ModelSpec()
    tools: list[InternalTool] = []
    external_tools: Annotated[list[ExternalTool], Field(max_length=64)] = []
    skills: Annotated[list[Slug], Field(max_length=64)] = []
    delegates: Annotated[list[DelegateReference | DelegateEntry], Field(max_length=64)] = []
    memory_policy: MemoryPolicy = MemoryPolicy()
    tool_approval_default: ToolApprovalMode = "granted"
    default_task_id: Slug | None = None
    budget: Budget | None = None  # the default budget of the run trees this agent is the root of

    @field_validator("tools", "skills", "delegates")
    @classmethod
    def _unique(cls, value: list[Any]) -> list[Any]:
        return list(dict.fromkeys(value))

    @property
    def delegate_entries(self) -> list[DelegateEntry]:
        """Every ``delegates`` entry with its context mode (``full`` for a bare reference)."""
        return [entry if isinstance(entry, DelegateEntry) else DelegateEntry(agent=entry) for entry in self.delegates]

    @property
    def delegate_names(self) -> list[str]:
        return [entry.agent for entry in self.delegate_entries]


class Task(BaseModel):
    model_config = ConfigDict(extra="ignore")

    task_id: Slug
    agent_id: Slug
    owner: str = ""
    name: Annotated[str, StringConstraints(max_length=200)] = ""
    context_prompt: LongText = ""
    memory_policy: MemoryPolicy = MemoryPolicy()


class Skill(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: Slug
    owner: str = ""
    description: Annotated[str, StringConstraints(min_length=1, max_length=SKILL_DESCRIPTION_MAX)]
    when_to_use: ShortText | None = None
    content: LongText


__all__ = [
    "INTERNAL_TOOLS",
    "Agent",
    "ContextMode",
    "DelegateEntry",
    "ExternalTool",
    "Identifier",
    "InferenceSettings",
    "ModelSpec",
    "Skill",
    "Task",
    "ToolApprovalMode",
]
