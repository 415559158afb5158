"""The caller's own audit records (SPEC §9): ``GET /v1/audit?run_id=&namespace=&action=&limit=&cursor=``."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.presenters import audit_view
from mneme.api.responses import refusals
from mneme.api.run_views import answers
from mneme.api.views import AuditPageView
from mneme.engine.views.audit_reads import list_audit
from mneme.models.audit import AuditAction

router = new_router()


@router.get(
    "/v1/audit", responses={**answers(200, AuditPageView), **refusals({404: "`run_id` names no run of the caller's"})}
)
def get_audit(
    run_id: Annotated[str | None, Query(max_length=128)] = None,
    namespace: Annotated[str | None, Query(max_length=512)] = None,
    action: Annotated[AuditAction | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
) -> dict[str, Any]:
    """The caller's records, newest first."""
    page = list_audit(
        deps_of(router),
        caller_of(router),
        run_id=run_id,
        namespace=namespace,
        action=action,
        limit=limit,
        cursor=cursor,
    )
    return {"records": [audit_view(r) for r in page.records], "cursor": page.cursor}
