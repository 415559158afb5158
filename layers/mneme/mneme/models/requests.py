"""The request contracts of mneme: the bodies of the HTTP API and the context preview, validated at the edge
and handed to the engine's use cases as they are. A run's own request (``POST /v1/runs``, the EventBridge
trigger) is :class:`mneme.models.run_request.RunRequest`.

Extra fields are ignored: a ``user_id`` or ``owner`` in a body never counts (the user comes from the token).
"""

from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    StringConstraints,
    Tag,
    field_validator,
    model_validator,
)

from mneme.models import common
from mneme.models.agent import (
    Agent,
    DelegateEntry,
    ExternalTools,
    InternalTool,
    ModelSpec,
    Task,
    ToolApprovalMode,
    delegate_kind,
)
from mneme.models.budget import Budget
from mneme.models.common import Flag, Label, LongText, Moment, NotBlank, Number, ShortText, Slug, TopK, storable_json
from mneme.models.mcp import McpServer, check_servers
from mneme.models.memory import MemoryClass
from mneme.models.policy import Fusion, MemoryPolicy, Retrieval
from mneme.models.run_request import RunRequest
from mneme.namespace_grammar import SHAPE
from mneme.spec_limits import (
    DOCUMENT_BODY_CHARS,
    MAX_DOCUMENT_CHARS,
    MAX_NAMESPACE_CHARS,
    MAX_NAMESPACES_PER_SEARCH,
    MAX_QUERY_CHARS,
    MAX_REFERENCE_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TTL_SECONDS,
    MCP_MAX_SERVERS,
    MIN_TTL_SECONDS,
)

#: the model providers an agent may be saved with (SPEC §2)
AVAILABLE_PROVIDERS = frozenset({"bedrock", "offline", "openai-compatible"})
#: top_p values Claude accepts while extended thinking is on (temperature may not be changed at all)
MIN_REASONING_TOP_P = 0.95


class McpRunBody(RunRequest):
    """The MCP ``run-agent`` tool's arguments: a run request, and the ``Idempotency-Key`` of ``POST /v1/runs``."""

    idempotency_key: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None

    def run_request(self) -> RunRequest:
        return RunRequest.model_validate(self.model_dump(exclude={"idempotency_key"}))


Reference = Annotated[str, StringConstraints(min_length=1, max_length=MAX_REFERENCE_CHARS)]
#: told to OpenAPI clients, not checked by pydantic: the grammar checks namespaces and says what is wrong
NAMESPACE_SHAPE = SHAPE
NamespaceText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_NAMESPACE_CHARS),
    Field(json_schema_extra={"pattern": NAMESPACE_SHAPE}),
]


class _Body(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    #: fields a client sends back as a GET showed them (ids, owner, warnings): ignored without a word
    echoed: ClassVar[frozenset[str]] = frozenset()
    _ignored: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _note_ignored(cls, data: Any, handler: Any) -> Any:
        body = handler(data)
        if isinstance(data, dict) and isinstance(body, _Body):
            known = {field.alias or name for name, field in cls.model_fields.items()} | set(cls.model_fields)
            body._ignored = sorted(str(key) for key in data if key not in known | cls.echoed)
        return body

    def ignored(self) -> list[str]:
        """A warning for each of the first ten fields not the resource's (a typo such as ``tool``), by 64 characters
        at most, the rest counted (2 MB of names quoted whole made a response over Lambda's 6 MB: a 500)."""
        named = [name if len(name) <= 64 else f"{name[:64]}…" for name in self._ignored[:10]]
        warnings = [f"field {name!r} is not one of this resource's: it was ignored" for name in named]
        if len(self._ignored) > 10:
            warnings.append(f"{len(self._ignored) - 10} more fields that are not this resource's were ignored")
        return warnings


class AgentBody(_Body):
    echoed = frozenset(Agent.model_fields) | {"warnings"}
    label: Label
    description: ShortText = ""
    model: ModelSpec = ModelSpec()
    tools: list[InternalTool] = []
    external_tools: ExternalTools = []
    mcp_servers: Annotated[list[McpServer], Field(max_length=MCP_MAX_SERVERS)] = []
    skills: Annotated[list[Slug], Field(max_length=64)] = []
    delegates: Annotated[
        list[
            Annotated[
                Annotated[Reference, Tag("reference")] | Annotated[DelegateEntry, Tag("entry")],
                Discriminator(delegate_kind),
            ]
        ],
        Field(max_length=64),
    ] = []
    memory_policy: MemoryPolicy = MemoryPolicy()
    tool_approval_default: ToolApprovalMode = "granted"
    default_task_id: Slug | None = None
    budget: Budget | None = None
    is_global: Flag = Field(False, alias="global", description="admins only: a global agent usable by all")

    @field_validator("model")
    @classmethod
    def _model_usable(cls, model: ModelSpec) -> ModelSpec:
        """Provider-specific fields only with their provider, and extended thinking only with the settings
        Claude accepts next to it (whether the model thinks at all is checked against the capability table
        by the use case: ``engine.configuration.put_agent``)."""
        if model.provider not in AVAILABLE_PROVIDERS:
            available = ", ".join(sorted(AVAILABLE_PROVIDERS))
            raise ValueError(f"model provider {model.provider!r} is not available in this release (use {available})")
        if model.guardrail is not None and model.provider != "bedrock":
            raise ValueError("model.guardrail is a Bedrock guardrail: only for provider 'bedrock'")
        for name in ("endpoint", "api_key_secret_arn"):
            if getattr(model, name) is not None and model.provider != "openai-compatible":
                raise ValueError(f"model.{name} is only for provider 'openai-compatible'")
        inference = model.inference
        if inference.reasoning is not None:
            budget = inference.reasoning.budget_tokens
            if inference.max_tokens is None or inference.max_tokens <= budget:
                raise ValueError(
                    f"model.inference.reasoning needs model.inference.max_tokens above its budget_tokens ({budget})"
                )
            if inference.temperature is not None:
                raise ValueError("model.inference.temperature cannot be set while reasoning is on")
            if inference.top_p is not None and inference.top_p < MIN_REASONING_TOP_P:
                raise ValueError(f"model.inference.top_p must be at least {MIN_REASONING_TOP_P} while reasoning is on")
        return model

    @model_validator(mode="after")
    def _mcp_namespaces(self) -> Self:
        check_servers(self.mcp_servers, [tool.name for tool in self.external_tools])
        return self


class TaskBody(_Body):
    echoed = frozenset(Task.model_fields) | {"warnings"}
    name: Annotated[str, StringConstraints(max_length=200)] = ""
    context_prompt: LongText = ""
    memory_policy: MemoryPolicy = MemoryPolicy()


class SkillBody(_Body):
    """A skill's description is what its catalog line offers the model and its content what ``activate_skill``
    answers: whitespace alone in either is a 400 naming it (a skill nothing could match, or that gives nothing)."""

    description: Annotated[str, StringConstraints(min_length=1, max_length=1024), NotBlank]
    when_to_use: ShortText | None = None
    content: Annotated[LongText, NotBlank]
    is_global: Flag = Field(False, alias="global", description="admins only: a global skill")


class SearchBody(_Body):
    query: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS), NotBlank]
    namespaces: Annotated[list[NamespaceText], Field(max_length=MAX_NAMESPACES_PER_SEARCH)] | None = None
    top_k: TopK = 5
    retrieval: Retrieval | None = None  # default: the deployment's (hybrid)
    fusion: Fusion | None = None
    min_score: Annotated[float, Field(ge=0, le=10), Number] | None = None  # default: calibrated per model and mode
    relative_cutoff: Annotated[float, Field(ge=0, le=1), Number] | None = None
    explain: Flag = False  # also the dropped candidates and why, and each hit's score parts (issue 35.1)
    as_of: common.MomentUntil | None = None  # what would have been recalled then (issue 35.3); a date: its end
    lines: Flag = False  # each chat-line hit with the lines said around it, as a run's model sees them (issue 30)


class ExplainBody(_Body):
    query: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS), NotBlank]
    memory_id: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    agent_id: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    task_id: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None


Tags = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=MAX_TAG_CHARS)]], Field(max_length=MAX_TAGS)
]


#: a document's content: the document states its real limit (a longer content is read, then answered 413 with the
#: limit and its length); it said 1,000,000, the body's own bound, which a client checking the schema let through
DocumentContent = Annotated[
    str,
    StringConstraints(min_length=1, max_length=DOCUMENT_BODY_CHARS),
    NotBlank,
    Field(
        json_schema_extra={"maxLength": MAX_DOCUMENT_CHARS},
        description=(
            f"stored in chunks of the embedding model's input size; over {MAX_DOCUMENT_CHARS:,} characters: 413"
        ),
    ),
]
#: an entry's content changed in place is one text: at most the embedding model's input size (413 above it)
PatchedContent = Annotated[
    str,
    StringConstraints(min_length=1, max_length=DOCUMENT_BODY_CHARS),
    NotBlank,
    Field(
        description="one text, at most the embedding model's input size (all-MiniLM-L6-v2 locally: 2,000 "
        "characters; 413 above it)"
    ),
]


class DocumentBody(_Body):
    namespace: NamespaceText
    content: DocumentContent
    tags: Tags = []
    ttl_seconds: Annotated[int, Field(ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS), Number] | None = None
    observed_at: Moment | None = None  # when it was true or said (default: now)
    memory_class: MemoryClass | None = Field(None, alias="class")
    metadata: Annotated[dict[str, Any], Field(max_length=32), AfterValidator(storable_json)] = {}  # reserved: 400


MAX_BATCH_ITEMS = 100
ClientToken = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$")]


class BatchItem(DocumentBody):
    """One entry of ``POST /v1/memory/documents:batch``; ``client_token`` makes its retry a no-op."""

    client_token: ClientToken | None = None


class DocumentBatchBody(_Body):
    """Up to 100 entries; each is validated on its own, so one bad item is reported by index, never the batch."""

    # ``Any``: an item that is no object is that item's 400 (``batch._validated``), not the whole batch's
    items: Annotated[
        list[Any],
        Field(
            min_length=1,
            max_length=MAX_BATCH_ITEMS,
            json_schema_extra={"items": {"type": "object", "additionalProperties": True}},
        ),
    ]


class DocumentPatch(_Body):
    """``PATCH /v1/memory/documents/{id}``: confirm or correct an entry (at least one field)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    content: PatchedContent | None = None
    tags: Tags | None = None
    status: Literal["active", "superseded"] | None = None


class DeleteDocumentBody(_Body):
    """The MCP ``memory-delete`` tool's arguments (``DELETE /v1/memory/documents/{id}?namespace=`` over HTTP)."""

    id: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    namespace: NamespaceText | None = None


class ApprovalBody(_Body):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    decision: Literal["once", "always", "deny"]


class SocketMessage(_Body):
    """A WebSocket client's message: ``{action: subscribe | unsubscribe | ping, run_id, tree?, after?, cursor?}``."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["subscribe", "unsubscribe", "ping"]
    run_id: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    tree: Flag = False
    after: Annotated[int, Field(ge=0), Number] | None = None
    cursor: Annotated[str, StringConstraints(max_length=4096)] | None = None

    @model_validator(mode="after")
    def _names_a_run(self) -> Self:
        if self.action != "ping" and not self.run_id:
            raise ValueError(f"{self.action} needs a run_id")
        return self
