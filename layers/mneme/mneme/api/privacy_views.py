"""Response shapes of the privacy routes, for the OpenAPI document (the routes answer plain dicts)."""

from typing import Any

from pydantic import Field

from mneme.api.run_views import View


class ExportView(View):
    export_id: str
    status: str = Field(description="pending | running | ready | failed")
    created_at: str
    expires_at: str
    counts: dict[str, int] = Field(description="items in the archive by kind (once ready)")
    download_url: str | None = Field(None, description="GET it for the NDJSON archive (only when ready)")


class GlobalMemoryView(View):
    id: str
    namespace: str
    created_at: str


class ErasureView(View):
    erasure_id: str
    user_id: str
    status: str = Field(description="running | done")
    started_at: str
    finished_at: str | None
    counts: dict[str, int] = Field(description="what was erased, by kind")
    digest: str | None = Field(description="sha256 over the erased items' keys, sorted, one per line")
    global_memories: list[GlobalMemoryView] = Field(description="vector.global.* entries the user wrote: kept")
    audit_redacted: int
    verified: bool = Field(description="a listing of every store after the erasure found nothing of the user")


class ChainBreakView(View):
    seq: int
    reason: str


class ChainReportView(View):
    user_id: str
    verified: bool
    records: int
    unchained: int
    redacted: int
    head: dict[str, Any] | None
    first_broken: ChainBreakView | None


class RetentionView(View):
    chats_days: int
    runs_days: int
    requests_days: int
    memory_days: dict[str, int]
    exports_days: int
