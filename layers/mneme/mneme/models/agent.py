"""Agents, tasks, skills and external tools (SPEC §2, §8)."""

import re
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    field_validator,
    model_validator,
)

from mneme.models.budget import Budget
from mneme.models.common import Identifier, Label, LongText, Number, ShortText, Slug
from mneme.models.mcp import McpServer, check_servers
from mneme.models.policy import MemoryPolicy
from mneme.schema_refs import has_remote_ref
from mneme.spec_limits import MCP_MAX_SERVERS, SKILL_DESCRIPTION_MAX

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
#: messages, SPEC §6), ``isolated`` (only the delegation input), ``tail:N`` (the last N messages) or
#: ``fork`` (issue 35.4: ``full`` behind the parent's own cacheable request prefix, see mneme.context.fork)
CONTEXT_MODE_PATTERN = r"^(fork|full|isolated|tail:[1-9][0-9]{0,3})$"
ContextMode = Annotated[str, StringConstraints(pattern=CONTEXT_MODE_PATTERN)]
DelegateReference = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class DelegateEntry(BaseModel, defer_build=True):
    """A ``delegates`` entry that also bounds the context the sub-agent gets (a bare string means ``full``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: DelegateReference
    context: ContextMode = "full"


def delegate_kind(value: Any) -> str:
    """The tag of a ``delegates`` item: ``reference`` (a bare string) or ``entry``."""
    return "reference" if isinstance(value, str) else "entry"


#: a bare reference or an entry, told apart by type, so an entry's error names its own field
#: (``delegates.0.entry.context``), not the bare form it also failed to be
DelegateItem = Annotated[
    Annotated[DelegateReference, Tag("reference")] | Annotated[DelegateEntry, Tag("entry")],
    Discriminator(delegate_kind),
]


# cross-region inference profile prefixes: us.anthropic..., eu.amazon.nova-..., global.anthropic...
_PROFILE_PREFIX = re.compile(r"^(?:us|eu|apac|global|us-gov|jp|au|ca)\.")


def base_model_id(model_id: str) -> str:
    """The foundation model id behind an ARN or a cross-region inference profile id (lowercase)."""
    name = model_id.strip().lower().rsplit("/", 1)[-1]
    return _PROFILE_PREFIX.sub("", name, count=1)


#: Claude's extended thinking: at least 1,024 budget tokens, and fewer than ``max_tokens``
MIN_REASONING_BUDGET = 1_024


class ReasoningSettings(BaseModel, defer_build=True):
    """Extended thinking (``inference.reasoning``): sent as ``additionalModelRequestFields.thinking``."""

    model_config = ConfigDict(extra="forbid")

    budget_tokens: Annotated[int, Field(ge=MIN_REASONING_BUDGET, le=128_000), Number]


class InferenceSettings(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid")

    max_tokens: Annotated[int, Field(ge=1, le=200_000), Number] | None = None
    temperature: Annotated[float, Field(ge=0, le=2), Number] | None = None
    top_p: Annotated[float, Field(ge=0, le=1), Number] | None = None
    stop_sequences: Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=8)] = []
    reasoning: ReasoningSettings | None = None


class GuardrailSpec(BaseModel, defer_build=True):
    """A Bedrock guardrail applied to every model call of the agent (sent as ``guardrailConfig``)."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[
        str,
        StringConstraints(
            pattern=r"^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail/[a-z0-9]+))$",
            max_length=2048,
        ),
    ]
    version: Annotated[str, StringConstraints(pattern=r"^(([1-9][0-9]{0,7})|(DRAFT))$")]
    trace: Literal["enabled", "disabled", "enabled_full"] = "disabled"


SecretArn = Annotated[
    str, StringConstraints(pattern=r"^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$")
]


class ModelSpec(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore", protected_namespaces=())

    provider: Provider = "offline"
    model_id: Annotated[str, StringConstraints(min_length=1, max_length=256)] = "offline"
    endpoint: Annotated[str, StringConstraints(max_length=2048)] | None = None  # openai-compatible only
    # openai-compatible only: the Secrets Manager secret holding the API key (the key itself is never configured)
    api_key_secret_arn: SecretArn | None = None
    inference: InferenceSettings = InferenceSettings()
    guardrail: GuardrailSpec | None = None  # bedrock only


class ExternalTool(BaseModel, defer_build=True):
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
        if has_remote_ref(value):
            raise ValueError("input_schema may use $ref only inside itself ('#/...'): a remote one would be fetched")
        return value


def _one_tool_per_name(tools: list[ExternalTool]) -> list[ExternalTool]:
    names = [tool.name for tool in tools]  # with two of a name, the model would see one and a call reach the other
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"external tool names must be unique: {', '.join(map(repr, duplicates))}")
    return tools


#: the external tools of an agent's save (AgentBody): at most 64, each name once. A stored agent is read as it
#: was saved (one stored before this check must still load: listing the owner's agents reads every one)
ExternalTools = Annotated[list[ExternalTool], Field(max_length=64), AfterValidator(_one_tool_per_name)]


class Agent(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore")

    agent_id: Slug
    owner: str = ""  # the owning user id, or GLOBAL_OWNER; set by the server, never by a body
    label: Label
    description: ShortText = ""
    model: ModelSpec = ModelSpec()
    tools: list[InternalTool] = []
    external_tools: Annotated[list[ExternalTool], Field(max_length=64)] = []  # a save's: ExternalTools
    mcp_servers: Annotated[list[McpServer], Field(max_length=MCP_MAX_SERVERS)] = []
    skills: Annotated[list[Slug], Field(max_length=64)] = []
    delegates: Annotated[list[DelegateItem], Field(max_length=64)] = []
    memory_policy: MemoryPolicy = MemoryPolicy()
    tool_approval_default: ToolApprovalMode = "granted"
    default_task_id: Slug | None = None
    budget: Budget | None = None  # the default budget of the run trees this agent is the root of

    @field_validator("tools", "skills", "delegates")
    @classmethod
    def _unique(cls, value: list[Any]) -> list[Any]:
        return list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _mcp_namespaces(self) -> Self:
        check_servers(self.mcp_servers, [tool.name for tool in self.external_tools])
        return self

    @property
    def delegate_entries(self) -> list[DelegateEntry]:
        """Every ``delegates`` entry with its context mode (``full`` for a bare reference)."""
        return [entry if isinstance(entry, DelegateEntry) else DelegateEntry(agent=entry) for entry in self.delegates]

    @property
    def delegate_names(self) -> list[str]:
        return [entry.agent for entry in self.delegate_entries]


class Task(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore")

    task_id: Slug
    agent_id: Slug
    owner: str = ""
    name: Annotated[str, StringConstraints(max_length=200)] = ""
    context_prompt: LongText = ""
    memory_policy: MemoryPolicy = MemoryPolicy()


class Skill(BaseModel, defer_build=True):
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
    "ExternalTools",
    "GuardrailSpec",
    "Identifier",
    "InferenceSettings",
    "McpServer",
    "ModelSpec",
    "ReasoningSettings",
    "Skill",
    "Task",
    "ToolApprovalMode",
]
