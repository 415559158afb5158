"""The caller's own audit records (SPEC §9): ``GET /v1/audit?run_id=&namespace=&action=&limit=&cursor=``."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.models.audit import AuditAction

router = new_router()


@router.get("/v1/audit")
def list_audit(
    run_id: Annotated[str | None, Query(max_length=128)] = None,
    namespace: Annotated[str | None, Query(max_length=512)] = None,
    action: Annotated[AuditAction | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
) -> dict[str, Any]:
    page = deps_of(router).audit.query(
        caller_of(router).user_id,
        run_id=run_id,
        namespace=namespace,
        action=action,
        limit=limit,
        cursor=cursor,
    )
    return {"records": [r.model_dump(mode="json") for r in page.records], "cursor": page.cursor}
