# Generated from mneme's OpenAPI document by `make client-models` (scripts/client_models.py): do not edit.
# ruff: noqa

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class DefaultTaskId(RootModel[str]):
    root: Annotated[str, Field(pattern="^[a-z0-9][a-z0-9-]{0,63}$", title="Default Task Id")]


class Delegates(RootModel[str]):
    root: Annotated[str, Field(max_length=128, min_length=1)]


class Skill(RootModel[str]):
    root: Annotated[str, Field(pattern="^[a-z0-9][a-z0-9-]{0,63}$")]


class ApprovalBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    call_id: Annotated[str, Field(max_length=128, min_length=1, title="Call Id")]
    decision: Annotated[Literal["once", "always", "deny"], Field(title="Decision")]


class AuditRecordView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    action: Annotated[
        Literal[
            "read",
            "write",
            "update",
            "delete",
            "denied",
            "delegation",
            "delegation_refused",
            "approval",
            "cancel",
            "preview",
            "export",
            "erasure",
            "config",
        ],
        Field(title="Action"),
    ]
    agent_id: Annotated[str | None, Field(title="Agent Id")]
    at: Annotated[str, Field(title="At")]
    depth: Annotated[int, Field(title="Depth")]
    detail: Annotated[dict[str, Any], Field(title="Detail")]
    namespace: Annotated[str | None, Field(title="Namespace")]
    root_run_id: Annotated[str | None, Field(title="Root Run Id")]
    run_id: Annotated[str | None, Field(title="Run Id")]
    task_id: Annotated[str | None, Field(title="Task Id")]
    user_id: Annotated[str, Field(title="User Id")]


class AuditTreeView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    records: Annotated[list[AuditRecordView], Field(title="Records")]


class BatchItemResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    error: Annotated[
        dict[str, Any] | None,
        Field(description="{code, message, field?} of a refused item", title="Error"),
    ] = None
    ids: Annotated[list[str] | None, Field(title="Ids")] = None
    index: Annotated[int, Field(description="the item's position in the request", title="Index")]
    namespace: Annotated[str | None, Field(title="Namespace")] = None
    refreshed: Annotated[
        bool | None,
        Field(
            description="true: an entry of identical content was already stored; it was refreshed (its ids)",
            title="Refreshed",
        ),
    ] = None
    replayed: Annotated[
        bool | None,
        Field(
            description="true: a retry of a client_token already stored",
            title="Replayed",
        ),
    ] = None
    status: Annotated[
        int,
        Field(
            description="201 stored (or replayed), else the HTTP status the item alone would get",
            title="Status",
        ),
    ]


class BatchResultsView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    results: Annotated[list[BatchItemResult], Field(title="Results")]


class MaxModelCalls(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=100000, title="Max Model Calls")]


class MaxRuns(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="runs in the tree, the root included",
            ge=1,
            le=1000,
            title="Max Runs",
        ),
    ]


class MaxSeconds(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=691200, title="Max Seconds")]


class MaxTokens(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=1000000000, title="Max Tokens")]


class Budget(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    max_model_calls: Annotated[MaxModelCalls | None, Field(title="Max Model Calls")] = None
    max_runs: Annotated[MaxRuns | None, Field(title="Max Runs")] = None
    max_seconds: Annotated[MaxSeconds | None, Field(title="Max Seconds")] = None
    max_tokens: Annotated[MaxTokens | None, Field(title="Max Tokens")] = None


class CancelView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cancelled: Annotated[
        list[str],
        Field(
            description="the runs this call cancelled (the run and its unfinished descendants)",
            title="Cancelled",
        ),
    ]
    run_id: Annotated[str, Field(title="Run Id")]
    status: Annotated[str, Field(title="Status")]
    stopped_executions: Annotated[int, Field(title="Stopped Executions")]


class ChainBreakView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    reason: Annotated[str, Field(title="Reason")]
    seq: Annotated[int, Field(title="Seq")]


class ChainReportView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    first_broken: ChainBreakView | None
    head: Annotated[dict[str, Any] | None, Field(title="Head")]
    records: Annotated[int, Field(title="Records")]
    redacted: Annotated[int, Field(title="Redacted")]
    unchained: Annotated[int, Field(title="Unchained")]
    user_id: Annotated[str, Field(title="User Id")]
    verified: Annotated[bool, Field(title="Verified")]


class ChatView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    chat_id: Annotated[str, Field(title="Chat Id")]
    created_at: Annotated[str, Field(title="Created At")]
    cursor: Annotated[
        str | None,
        Field(
            description="pass as cursor for the next page of messages; null on the last page",
            title="Cursor",
        ),
    ]
    messages: Annotated[list[dict[str, Any]], Field(title="Messages")]
    title: Annotated[str, Field(title="Title")]
    updated_at: Annotated[str, Field(title="Updated At")]


class DelegateEntry(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    agent: Annotated[str, Field(max_length=128, min_length=1, title="Agent")]
    context: Annotated[
        str | None,
        Field(pattern="^(fork|full|isolated|tail:[1-9][0-9]{0,3})$", title="Context"),
    ] = "full"


class DocumentBatchBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    items: Annotated[list[dict[str, Any]], Field(max_length=100, min_length=1, title="Items")]


class Tag(RootModel[str]):
    root: Annotated[str, Field(max_length=64, min_length=1)]


class TtlSeconds(RootModel[int]):
    root: Annotated[int, Field(ge=60, le=315360000, title="Ttl Seconds")]


class DocumentBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    class_: Annotated[
        Literal["episodic", "semantic", "preference", "procedural", "document"] | None,
        Field(alias="class", title="Class"),
    ] = None
    content: Annotated[
        str,
        Field(
            description="stored in chunks of the embedding model's input size; over 200,000 characters: 413",
            max_length=200000,
            min_length=1,
            title="Content",
        ),
    ]
    metadata: Annotated[dict[str, Any] | None, Field(max_length=32, title="Metadata")] = {}
    namespace: Annotated[
        str,
        Field(
            max_length=512,
            min_length=1,
            pattern="^vector\\.(agent|user|global)\\..+",
            title="Namespace",
        ),
    ]
    observed_at: Annotated[datetime | None, Field(title="Observed At")] = None
    tags: Annotated[list[Tag] | None, Field(max_length=32, title="Tags", validate_default=True)] = []
    ttl_seconds: Annotated[TtlSeconds | None, Field(title="Ttl Seconds")] = None


class Content(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="one text, at most the embedding model's input size (all-MiniLM-L6-v2 locally: 2,000 characters; 413 above it)",
            max_length=1000000,
            min_length=1,
            title="Content",
        ),
    ]


class Tags(RootModel[list[Tag]]):
    root: Annotated[list[Tag], Field(max_length=32, title="Tags")]


class DocumentPatch(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    content: Annotated[Content | None, Field(title="Content")] = None
    status: Annotated[Literal["active", "superseded"] | None, Field(title="Status")] = None
    tags: Annotated[Tags | None, Field(title="Tags")] = None


class DocumentView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    authority: Annotated[
        str | None,
        Field(
            description="user_directed | agent_initiated | extracted | auto_write",
            title="Authority",
        ),
    ]
    chunk_count: Annotated[int | None, Field(title="Chunk Count")]
    chunk_index: Annotated[int | None, Field(title="Chunk Index")]
    class_: Annotated[
        str,
        Field(
            alias="class",
            description="episodic | semantic | preference | procedural | document",
            title="Class",
        ),
    ]
    content: Annotated[str, Field(title="Content")]
    derived: Annotated[
        list[str] | None,
        Field(
            description="with ?derived=true: the ids a delete would cascade to",
            title="Derived",
        ),
    ] = None
    derived_from: Annotated[list[str], Field(title="Derived From")]
    id: Annotated[str, Field(title="Id")]
    metadata: Annotated[dict[str, Any], Field(title="Metadata")]
    namespace: Annotated[str, Field(title="Namespace")]
    observed_at: Annotated[str | None, Field(title="Observed At")]
    parent_id: Annotated[str | None, Field(title="Parent Id")]
    recorded_at: Annotated[str, Field(title="Recorded At")]
    status: Annotated[str, Field(description="active | superseded | deleted", title="Status")]
    superseded_by: Annotated[str | None, Field(title="Superseded By")]
    tags: Annotated[list[str], Field(title="Tags")]
    updated_at: Annotated[str, Field(title="Updated At")]


class DocumentsView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    ids: Annotated[list[str], Field(title="Ids")]


class Error(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    error: Annotated[str, Field(title="Error")]
    field: Annotated[str | None, Field(title="Field")] = None
    message: Annotated[str, Field(title="Message")]


class EventView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    at: Annotated[str, Field(title="At")]
    seq: Annotated[int, Field(title="Seq")]
    type: Annotated[str, Field(title="Type")]


class EventsView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cursor: Annotated[
        str | None,
        Field(
            description="pass as cursor (or after) for the next page; null on the last page. With tree=true: the tree cursor to continue from (never null); each event then also has run_id and depth",
            title="Cursor",
        ),
    ]
    events: Annotated[list[EventView], Field(title="Events")]


class AgentId(RootModel[str]):
    root: Annotated[str, Field(max_length=128, min_length=1, title="Agent Id")]


class TaskId(RootModel[str]):
    root: Annotated[str, Field(max_length=128, min_length=1, title="Task Id")]


class ExplainBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    agent_id: Annotated[AgentId | None, Field(title="Agent Id")] = None
    memory_id: Annotated[str, Field(max_length=128, min_length=1, title="Memory Id")]
    query: Annotated[str, Field(max_length=20000, min_length=1, title="Query")]
    task_id: Annotated[TaskId | None, Field(title="Task Id")] = None


class ExplainView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    auto_inject: Annotated[
        dict[str, Any] | None,
        Field(description="recalled, else the first reason", title="Auto Inject"),
    ] = None
    memory_id: Annotated[str, Field(title="Memory Id")]
    namespace: Annotated[str, Field(title="Namespace")]
    query: Annotated[str, Field(title="Query")]
    search: Annotated[
        dict[str, Any] | None,
        Field(
            description="without agent_id: POST /v1/memory/search's verdict",
            title="Search",
        ),
    ] = None
    tool_search: Annotated[
        dict[str, Any] | None,
        Field(description="recalled, else the first reason", title="Tool Search"),
    ] = None


class ExportView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    counts: Annotated[
        dict[str, int],
        Field(description="items in the archive by kind (once ready)", title="Counts"),
    ]
    created_at: Annotated[str, Field(title="Created At")]
    download_url: Annotated[
        str | None,
        Field(
            description="GET it for the NDJSON archive (only when ready)",
            title="Download Url",
        ),
    ] = None
    expires_at: Annotated[str, Field(title="Expires At")]
    export_id: Annotated[str, Field(title="Export Id")]
    status: Annotated[str, Field(description="pending | running | ready | failed", title="Status")]


class ExternalTool(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    description: Annotated[str, Field(max_length=1024, min_length=1, title="Description")]
    function_arn: Annotated[
        str,
        Field(
            pattern="^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$",
            title="Function Arn",
        ),
    ]
    input_schema: Annotated[dict[str, Any] | None, Field(title="Input Schema")] = None
    name: Annotated[str, Field(pattern="^[A-Za-z0-9_-]{1,64}$", title="Name")]


class ExtractionModel(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    model_id: Annotated[str, Field(max_length=256, min_length=1, title="Model Id")]
    provider: Annotated[str, Field(max_length=64, min_length=1, title="Provider")]


class GlobalMemoryView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    created_at: Annotated[str, Field(title="Created At")]
    id: Annotated[str, Field(title="Id")]
    namespace: Annotated[str, Field(title="Namespace")]


class GuardrailSpec(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    id: Annotated[
        str,
        Field(
            max_length=2048,
            pattern="^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail/[a-z0-9]+))$",
            title="Id",
        ),
    ]
    trace: Annotated[Literal["enabled", "disabled", "enabled_full"] | None, Field(title="Trace")] = "disabled"
    version: Annotated[str, Field(pattern="^(([1-9][0-9]{0,7})|(DRAFT))$", title="Version")]


class MaxTokens1(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=200000, title="Max Tokens")]


class StopSequence(RootModel[str]):
    root: Annotated[str, Field(max_length=200)]


class Temperature(RootModel[float]):
    root: Annotated[float, Field(ge=0.0, le=2.0, title="Temperature")]


class TopP(RootModel[float]):
    root: Annotated[float, Field(ge=0.0, le=1.0, title="Top P")]


class ClientId(RootModel[str]):
    root: Annotated[str, Field(max_length=256, min_length=1, title="Client Id")]


class Scope(RootModel[str]):
    root: Annotated[str, Field(max_length=1024, title="Scope")]


class Secret(RootModel[str]):
    root: Annotated[str, Field(pattern="^[A-Za-z0-9/_+=.@:-]{1,2048}$", title="Secret")]


class TokenUrl(RootModel[str]):
    root: Annotated[str, Field(max_length=2048, min_length=8, title="Token Url")]


class McpAuth(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    client_id: Annotated[ClientId | None, Field(title="Client Id")] = None
    scope: Annotated[Scope | None, Field(title="Scope")] = None
    secret: Annotated[Secret | None, Field(title="Secret")] = None
    token_url: Annotated[TokenUrl | None, Field(title="Token Url")] = None
    type: Annotated[
        Literal["none", "bearer", "oauth_client_credentials"] | None,
        Field(title="Type"),
    ] = "none"


class ForwardUserIdHeader(RootModel[str]):
    root: Annotated[
        str,
        Field(pattern="^[A-Za-z0-9][A-Za-z0-9-]{0,63}$", title="Forward User Id Header"),
    ]


class McpServer(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    auth: Annotated[McpAuth | None, Field(validate_default=True)] = {
        "client_id": None,
        "scope": None,
        "secret": None,
        "token_url": None,
        "type": "none",
    }
    forward_user_id_header: Annotated[ForwardUserIdHeader | None, Field(title="Forward User Id Header")] = None
    name: Annotated[str, Field(pattern="^[a-z0-9][a-z0-9-]{0,31}$", title="Name")]
    timeout_seconds: Annotated[float | None, Field(gt=0.0, le=30.0, title="Timeout Seconds")] = 10.0
    url: Annotated[str, Field(max_length=2048, min_length=8, title="Url")]


class MemoryHitView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    chunk_count: Annotated[int | None, Field(title="Chunk Count")]
    chunk_index: Annotated[int | None, Field(title="Chunk Index")]
    class_: Annotated[str, Field(alias="class", title="Class")]
    content: Annotated[str, Field(title="Content")]
    context: Annotated[
        list[dict[str, Any]] | None,
        Field(
            description="with lines: the lines of conversation said around a chat-line hit, each {id, content, offset} (-1 just before it, 1 just after it, …), in the order they were said; absent when none is shown",
            title="Context",
        ),
    ] = None
    created_at: Annotated[str, Field(title="Created At")]
    id: Annotated[str, Field(title="Id")]
    keyword_score: Annotated[
        float | None,
        Field(
            description="hybrid: the BM25 score of the keyword leg, if in it",
            title="Keyword Score",
        ),
    ]
    metadata: Annotated[dict[str, Any], Field(title="Metadata")]
    namespace: Annotated[str, Field(title="Namespace")]
    observed_at: Annotated[str | None, Field(title="Observed At")]
    parent_id: Annotated[str | None, Field(title="Parent Id")]
    relevance: Annotated[float, Field(title="Relevance")]
    similarity: Annotated[float, Field(title="Similarity")]
    vector_similarity: Annotated[
        float | None,
        Field(
            description="hybrid: the cosine of the vector leg, if in it",
            title="Vector Similarity",
        ),
    ]


class TopK(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Top K")]


class MemoryOverride(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    enabled: Annotated[bool | None, Field(title="Enabled")] = None
    top_k: Annotated[TopK | None, Field(title="Top K")] = None


class AllowedWriteNamespace(RootModel[str]):
    root: Annotated[str, Field(max_length=512, min_length=1)]


class AllowedWriteNamespaces(RootModel[list[AllowedWriteNamespace]]):
    root: Annotated[
        list[AllowedWriteNamespace],
        Field(max_length=32, title="Allowed Write Namespaces"),
    ]


class DuplicateThreshold(RootModel[float]):
    root: Annotated[float, Field(gt=0.0, le=1.0, title="Duplicate Threshold")]


class Extraction(RootModel[list[Literal["raw", "facts", "preferences", "summary"]]]):
    root: Annotated[
        list[Literal["raw", "facts", "preferences", "summary"]],
        Field(max_length=4, title="Extraction"),
    ]


class MinScore(RootModel[float]):
    root: Annotated[float, Field(ge=0.0, le=10.0, title="Min Score")]


class ReadNamespace(RootModel[str]):
    root: Annotated[str, Field(max_length=512, min_length=1)]


class ReadNamespaces(RootModel[list[ReadNamespace]]):
    root: Annotated[list[ReadNamespace], Field(max_length=32, title="Read Namespaces")]


class RecencyDecay(RootModel[float]):
    root: Annotated[float, Field(ge=0.0, le=10.0, title="Recency Decay")]


class RelativeCutoff(RootModel[float]):
    root: Annotated[float, Field(ge=0.0, le=1.0, title="Relative Cutoff")]


class StandingNamespace(RootModel[str]):
    root: Annotated[str, Field(max_length=512, min_length=1)]


class StandingNamespaces(RootModel[list[StandingNamespace]]):
    root: Annotated[list[StandingNamespace], Field(max_length=32, title="Standing Namespaces")]


class ToolReadNamespace(RootModel[str]):
    root: Annotated[str, Field(max_length=512, min_length=1)]


class ToolReadNamespaces(RootModel[list[ToolReadNamespace]]):
    root: Annotated[list[ToolReadNamespace], Field(max_length=32, title="Tool Read Namespaces")]


class WriteNamespace(RootModel[str]):
    root: Annotated[str, Field(max_length=512, min_length=1, title="Write Namespace")]


class ApiKeySecretArn(RootModel[str]):
    root: Annotated[
        str,
        Field(
            pattern="^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\\d{12}:secret:[A-Za-z0-9/_+=.@-]+$",
            title="Api Key Secret Arn",
        ),
    ]


class Endpoint(RootModel[str]):
    root: Annotated[str, Field(max_length=2048, title="Endpoint")]


class NamespaceCountView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    active: Annotated[int, Field(title="Active")]
    deleted: Annotated[int, Field(title="Deleted")]
    namespace: Annotated[str, Field(title="Namespace")]
    superseded: Annotated[int, Field(title="Superseded")]


class NamespaceRule(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    bonus: Annotated[float | None, Field(title="Bonus")] = 0.0
    instruction: Annotated[str | None, Field(title="Instruction")] = None
    pattern: Annotated[str, Field(title="Pattern")]


class NamespacesView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    namespaces: Annotated[list[NamespaceCountView], Field(title="Namespaces")]


class PendingApprovalView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    arguments: Annotated[dict[str, Any], Field(title="Arguments")]
    call_id: Annotated[str, Field(title="Call Id")]
    tool: Annotated[str, Field(title="Tool")]


class PreviewView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    memory_explanation: Annotated[
        dict[str, Any] | None,
        Field(
            description="with ?explain=true: auto-inject explained",
            title="Memory Explanation",
        ),
    ] = None
    memory_hits: Annotated[list[dict[str, Any]], Field(title="Memory Hits")]
    request: Annotated[dict[str, Any], Field(title="Request")]
    warnings: Annotated[list[str], Field(title="Warnings")]


class ReasoningSettings(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    budget_tokens: Annotated[int, Field(ge=1024, le=128000, title="Budget Tokens")]


class RememberedApprovalView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    agent_id: Annotated[str, Field(title="Agent Id")]
    created_at: Annotated[str, Field(title="Created At")]
    id: Annotated[str, Field(title="Id")]
    run_id: Annotated[str | None, Field(title="Run Id")]
    tool: Annotated[str, Field(title="Tool")]


class RememberedApprovalsView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    approvals: Annotated[list[RememberedApprovalView], Field(title="Approvals")]


class RequestsView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cursor: Annotated[
        str | None,
        Field(
            description="pass as cursor for the next page; null on the last page",
            title="Cursor",
        ),
    ]
    requests: Annotated[
        list[dict[str, Any]],
        Field(
            description='the Converse request of each model call, in call order; the rolling summary\'s call (made before the run\'s own) is marked "purpose": "summary"',
            title="Requests",
        ),
    ]


class RetentionView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    chats_days: Annotated[int, Field(title="Chats Days")]
    exports_days: Annotated[int, Field(title="Exports Days")]
    memory_days: Annotated[dict[str, int], Field(title="Memory Days")]
    requests_days: Annotated[int, Field(title="Requests Days")]
    runs_days: Annotated[int, Field(title="Runs Days")]


class RevisionsView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    revisions: Annotated[list[dict[str, Any]], Field(title="Revisions")]


class RunAcceptedView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    run_id: Annotated[str, Field(title="Run Id")]
    status: Annotated[str, Field(title="Status")]


class RunCostView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cache_read_tokens: Annotated[int, Field(title="Cache Read Tokens")]
    cache_write_tokens: Annotated[int, Field(title="Cache Write Tokens")]
    cost_usd: Annotated[float, Field(title="Cost Usd")]
    input_tokens: Annotated[int, Field(title="Input Tokens")]
    output_tokens: Annotated[int, Field(title="Output Tokens")]


class ChatId(RootModel[str]):
    root: Annotated[str, Field(pattern="^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", title="Chat Id")]


class ProjectId(RootModel[str]):
    root: Annotated[str, Field(pattern="^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", title="Project Id")]


class SessionId(RootModel[str]):
    root: Annotated[str, Field(pattern="^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", title="Session Id")]


class TaskId1(RootModel[str]):
    root: Annotated[str, Field(pattern="^[a-z0-9][a-z0-9-]{0,63}$", title="Task Id")]


class RunRequest(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    agent_id: Annotated[str, Field(pattern="^[a-z0-9][a-z0-9-]{0,63}$", title="Agent Id")]
    budget: Budget | None = None
    chat_id: Annotated[ChatId | None, Field(title="Chat Id")] = None
    input: Annotated[str, Field(min_length=1, title="Input")]
    memory: MemoryOverride | None = None
    project_id: Annotated[ProjectId | None, Field(title="Project Id")] = None
    session_id: Annotated[SessionId | None, Field(title="Session Id")] = None
    task_id: Annotated[TaskId1 | None, Field(title="Task Id")] = None
    tool_approval: Annotated[Literal["granted", "prompt", "denied"] | None, Field(title="Tool Approval")] = None


class RunStatus(RootModel[Literal["queued", "running", "waiting_approval", "succeeded", "failed", "cancelled"]]):
    root: Annotated[
        Literal["queued", "running", "waiting_approval", "succeeded", "failed", "cancelled"],
        Field(title="RunStatus"),
    ]


class RunSummaryView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    agent_id: Annotated[str, Field(title="Agent Id")]
    chat_id: Annotated[str | None, Field(title="Chat Id")]
    children: Annotated[int, Field(description="the runs the root delegated to", title="Children")]
    cost_usd: Annotated[
        float,
        Field(
            description="the whole delegation tree's cost (the price table's USD)",
            title="Cost Usd",
        ),
    ]
    created_at: Annotated[str, Field(title="Created At")]
    error: Annotated[str | None, Field(title="Error")]
    input: Annotated[
        str,
        Field(description="the run's input (its first 200 characters)", title="Input"),
    ]
    model_calls: Annotated[
        int,
        Field(
            description="the root run's own model calls, as GET /v1/runs/{id}'s model_calls (the tree's count is GET /v1/runs/{id}'s budget.used.model_calls)",
            title="Model Calls",
        ),
    ]
    project_id: Annotated[
        str | None,
        Field(
            description="the project the run's agent belongs to, if any",
            title="Project Id",
        ),
    ] = None
    run_id: Annotated[str, Field(title="Run Id")]
    status: Annotated[
        str,
        Field(
            description="the tree's status: the root's, which ends after every run below it",
            title="Status",
        ),
    ]
    task_id: Annotated[str | None, Field(title="Task Id")]
    tree_usage: Annotated[RunCostView, Field(description="the whole delegation tree's usage")]
    updated_at: Annotated[str, Field(title="Updated At")]


class Namespace(RootModel[str]):
    root: Annotated[
        str,
        Field(max_length=512, min_length=1, pattern="^vector\\.(agent|user|global)\\..+"),
    ]


class Namespaces(RootModel[list[Namespace]]):
    root: Annotated[list[Namespace], Field(max_length=32, title="Namespaces")]


class SearchBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    as_of: Annotated[datetime | None, Field(title="As Of")] = None
    explain: Annotated[bool | None, Field(title="Explain")] = False
    fusion: Annotated[Literal["rrf", "score"] | None, Field(title="Fusion")] = None
    lines: Annotated[bool | None, Field(title="Lines")] = False
    min_score: Annotated[MinScore | None, Field(title="Min Score")] = None
    namespaces: Annotated[Namespaces | None, Field(title="Namespaces")] = None
    query: Annotated[str, Field(max_length=20000, min_length=1, title="Query")]
    relative_cutoff: Annotated[RelativeCutoff | None, Field(title="Relative Cutoff")] = None
    retrieval: Annotated[Literal["vector", "hybrid", "keyword"] | None, Field(title="Retrieval")] = None
    top_k: Annotated[int | None, Field(ge=1, le=20, title="Top K")] = 5


class SearchView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    explanation: Annotated[
        dict[str, Any] | None,
        Field(
            description="with explain: each hit's score parts, every dropped candidate and why, the thresholds",
            title="Explanation",
        ),
    ] = None
    hits: Annotated[list[MemoryHitView], Field(title="Hits")]
    namespaces: Annotated[list[str], Field(title="Namespaces")]


class WhenToUse(RootModel[str]):
    root: Annotated[str, Field(max_length=1024, title="When To Use")]


class SkillBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    content: Annotated[str, Field(max_length=100000, title="Content")]
    description: Annotated[str, Field(max_length=1024, min_length=1, title="Description")]
    global_: Annotated[
        bool | None,
        Field(alias="global", description="admins only: a global skill", title="Global"),
    ] = False
    when_to_use: Annotated[WhenToUse | None, Field(title="When To Use")] = None


class TreeUsageView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    active_children: Annotated[int, Field(title="Active Children")]
    model_calls: Annotated[int, Field(title="Model Calls")]
    runs: Annotated[int, Field(title="Runs")]
    seconds: Annotated[int, Field(title="Seconds")]
    tokens: Annotated[int, Field(title="Tokens")]


class UsageView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cache_read_tokens: Annotated[int, Field(title="Cache Read Tokens")]
    cache_write_tokens: Annotated[int, Field(title="Cache Write Tokens")]
    input_tokens: Annotated[int, Field(title="Input Tokens")]
    output_tokens: Annotated[int, Field(title="Output Tokens")]


class Email(RootModel[str]):
    root: Annotated[str, Field(max_length=254, title="Email")]


class UserSettings(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    email: Annotated[Email | None, Field(title="Email")] = None
    language: Annotated[str | None, Field(title="Language")] = "en"
    name: Annotated[str | None, Field(max_length=200, title="Name")] = ""
    timezone: Annotated[str | None, Field(title="Timezone")] = "UTC"


class AuditPageView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cursor: Annotated[str | None, Field(title="Cursor")]
    records: Annotated[list[AuditRecordView], Field(title="Records")]


class BudgetView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    max_model_calls: Annotated[int, Field(title="Max Model Calls")]
    max_runs: Annotated[int, Field(title="Max Runs")]
    max_seconds: Annotated[int, Field(title="Max Seconds")]
    max_tokens: Annotated[int, Field(title="Max Tokens")]
    used: Annotated[
        TreeUsageView | None,
        Field(description="what the run's whole delegation tree has used so far"),
    ]


class DocumentPageView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cursor: Annotated[str | None, Field(title="Cursor")]
    documents: Annotated[list[DocumentView], Field(title="Documents")]
    namespace: Annotated[str, Field(title="Namespace")]


class ErasureView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    audit_redacted: Annotated[int, Field(title="Audit Redacted")]
    counts: Annotated[dict[str, int], Field(description="what was erased, by kind", title="Counts")]
    digest: Annotated[
        str | None,
        Field(
            description="sha256 over the erased items' keys, sorted, one per line",
            title="Digest",
        ),
    ]
    erasure_id: Annotated[str, Field(title="Erasure Id")]
    finished_at: Annotated[str | None, Field(title="Finished At")]
    global_memories: Annotated[
        list[GlobalMemoryView],
        Field(
            description="vector.global.* entries the user wrote: kept",
            title="Global Memories",
        ),
    ]
    started_at: Annotated[str, Field(title="Started At")]
    status: Annotated[str, Field(description="running | done", title="Status")]
    user_id: Annotated[str, Field(title="User Id")]
    verified: Annotated[
        bool,
        Field(
            description="a listing of every store after the erasure found nothing of the user",
            title="Verified",
        ),
    ]


class InferenceSettings(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    max_tokens: Annotated[MaxTokens1 | None, Field(title="Max Tokens")] = None
    reasoning: ReasoningSettings | None = None
    stop_sequences: Annotated[
        list[StopSequence] | None,
        Field(max_length=8, title="Stop Sequences", validate_default=True),
    ] = []
    temperature: Annotated[Temperature | None, Field(title="Temperature")] = None
    top_p: Annotated[TopP | None, Field(title="Top P")] = None


class NamespaceRules(RootModel[list[NamespaceRule]]):
    root: Annotated[list[NamespaceRule], Field(max_length=32, title="Namespace Rules")]


class MemoryPolicy(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    allow_tool_delete: Annotated[bool | None, Field(title="Allow Tool Delete")] = None
    allow_tool_write: Annotated[bool | None, Field(title="Allow Tool Write")] = None
    allow_write: Annotated[bool | None, Field(title="Allow Write")] = None
    allowed_write_namespaces: Annotated[AllowedWriteNamespaces | None, Field(title="Allowed Write Namespaces")] = None
    auto_read_enabled: Annotated[bool | None, Field(title="Auto Read Enabled")] = None
    duplicate_threshold: Annotated[DuplicateThreshold | None, Field(title="Duplicate Threshold")] = None
    extraction: Annotated[Extraction | None, Field(title="Extraction")] = None
    extraction_model: ExtractionModel | None = None
    fusion: Annotated[Literal["rrf", "score"] | None, Field(title="Fusion")] = None
    min_score: Annotated[MinScore | None, Field(title="Min Score")] = None
    namespace_rules: Annotated[NamespaceRules | None, Field(title="Namespace Rules")] = None
    read_namespaces: Annotated[ReadNamespaces | None, Field(title="Read Namespaces")] = None
    recency_decay: Annotated[RecencyDecay | None, Field(title="Recency Decay")] = None
    relative_cutoff: Annotated[RelativeCutoff | None, Field(title="Relative Cutoff")] = None
    retrieval: Annotated[Literal["vector", "hybrid", "keyword"] | None, Field(title="Retrieval")] = None
    standing_namespaces: Annotated[StandingNamespaces | None, Field(title="Standing Namespaces")] = None
    tool_read_namespaces: Annotated[ToolReadNamespaces | None, Field(title="Tool Read Namespaces")] = None
    top_k: Annotated[TopK | None, Field(title="Top K")] = None
    write_namespace: Annotated[WriteNamespace | None, Field(title="Write Namespace")] = None


class ModelSpec(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_key_secret_arn: Annotated[ApiKeySecretArn | None, Field(title="Api Key Secret Arn")] = None
    endpoint: Annotated[Endpoint | None, Field(title="Endpoint")] = None
    guardrail: GuardrailSpec | None = None
    inference: Annotated[InferenceSettings | None, Field(validate_default=True)] = {
        "max_tokens": None,
        "reasoning": None,
        "stop_sequences": [],
        "temperature": None,
        "top_p": None,
    }
    model_id: Annotated[str | None, Field(max_length=256, min_length=1, title="Model Id")] = "offline"
    provider: Annotated[
        Literal["bedrock", "offline", "openai-compatible"] | None,
        Field(title="Provider"),
    ] = "offline"


class RunListView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    cursor: Annotated[
        str | None,
        Field(
            description="pass as cursor for the next page; null on the last page",
            title="Cursor",
        ),
    ]
    runs: Annotated[list[RunSummaryView], Field(title="Runs")]


class RunView(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    agent_id: Annotated[str, Field(title="Agent Id")]
    agent_version: Annotated[
        str | None,
        Field(
            description="the agent's ETag when the run was created: its revision in GET /v1/agents/{id}/revisions",
            title="Agent Version",
        ),
    ] = None
    budget: Annotated[
        BudgetView | None,
        Field(description="the tree's budget (GET /v1/runs/{id} only)"),
    ] = None
    chat_id: Annotated[str | None, Field(title="Chat Id")]
    children: Annotated[list[str], Field(title="Children")]
    depth: Annotated[int, Field(title="Depth")]
    error: Annotated[str | None, Field(title="Error")]
    output: Annotated[str | None, Field(title="Output")]
    parent_run_id: Annotated[str | None, Field(title="Parent Run Id")]
    pending_approvals: Annotated[
        list[PendingApprovalView] | None,
        Field(
            description="while waiting_approval: the calls not answered yet (GET /v1/runs/{id} only)",
            title="Pending Approvals",
        ),
    ] = None
    root_run_id: Annotated[str, Field(title="Root Run Id")]
    run_id: Annotated[str, Field(title="Run Id")]
    status: Annotated[str, Field(title="Status")]
    task_id: Annotated[str | None, Field(title="Task Id")]
    usage: UsageView


class TaskBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    context_prompt: Annotated[str | None, Field(max_length=100000, title="Context Prompt")] = ""
    memory_policy: Annotated[MemoryPolicy | None, Field(validate_default=True)] = {
        "allow_tool_delete": None,
        "allow_tool_write": None,
        "allow_write": None,
        "allowed_write_namespaces": None,
        "auto_read_enabled": None,
        "duplicate_threshold": None,
        "extraction": None,
        "extraction_model": None,
        "fusion": None,
        "min_score": None,
        "namespace_rules": None,
        "read_namespaces": None,
        "recency_decay": None,
        "relative_cutoff": None,
        "retrieval": None,
        "standing_namespaces": None,
        "tool_read_namespaces": None,
        "top_k": None,
        "write_namespace": None,
    }
    name: Annotated[str | None, Field(max_length=200, title="Name")] = ""


class AgentBody(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    budget: Budget | None = None
    default_task_id: Annotated[DefaultTaskId | None, Field(title="Default Task Id")] = None
    delegates: Annotated[
        list[Delegates | DelegateEntry] | None,
        Field(max_length=64, title="Delegates", validate_default=True),
    ] = []
    description: Annotated[str | None, Field(max_length=1024, title="Description")] = ""
    external_tools: Annotated[
        list[ExternalTool] | None,
        Field(max_length=64, title="External Tools", validate_default=True),
    ] = []
    global_: Annotated[
        bool | None,
        Field(
            alias="global",
            description="admins only: a global agent usable by all",
            title="Global",
        ),
    ] = False
    label: Annotated[str, Field(max_length=128, min_length=1, title="Label")]
    mcp_servers: Annotated[
        list[McpServer] | None,
        Field(max_length=8, title="Mcp Servers", validate_default=True),
    ] = []
    memory_policy: Annotated[MemoryPolicy | None, Field(validate_default=True)] = {
        "allow_tool_delete": None,
        "allow_tool_write": None,
        "allow_write": None,
        "allowed_write_namespaces": None,
        "auto_read_enabled": None,
        "duplicate_threshold": None,
        "extraction": None,
        "extraction_model": None,
        "fusion": None,
        "min_score": None,
        "namespace_rules": None,
        "read_namespaces": None,
        "recency_decay": None,
        "relative_cutoff": None,
        "retrieval": None,
        "standing_namespaces": None,
        "tool_read_namespaces": None,
        "top_k": None,
        "write_namespace": None,
    }
    model: Annotated[ModelSpec | None, Field(validate_default=True)] = {
        "api_key_secret_arn": None,
        "endpoint": None,
        "guardrail": None,
        "inference": {
            "max_tokens": None,
            "reasoning": None,
            "stop_sequences": [],
            "temperature": None,
            "top_p": None,
        },
        "model_id": "offline",
        "provider": "offline",
    }
    skills: Annotated[list[Skill] | None, Field(max_length=64, title="Skills", validate_default=True)] = []
    tool_approval_default: Annotated[
        Literal["granted", "prompt", "denied"] | None,
        Field(title="Tool Approval Default"),
    ] = "granted"
    tools: Annotated[
        list[Literal["memory-search", "memory-write", "memory-update", "memory-delete", "delegate-to-agent"]] | None,
        Field(title="Tools"),
    ] = []
