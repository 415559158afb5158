"""The caller's own audit records (SPEC §9): ``GET /v1/audit?run_id=&namespace=&action=&limit=&cursor=``."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.views import AuditPageView, answers
from mneme.engine.deps import Deps
from mneme.errors import NotFound
from mneme.models.audit import AuditAction
from mneme.models.user import Caller

router = new_router()


@router.get("/v1/audit", responses=answers(200, AuditPageView))
def list_audit(
    run_id: Annotated[str | None, Query(max_length=128)] = None,
    namespace: Annotated[str | None, Query(max_length=512)] = None,
    action: Annotated[AuditAction | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
) -> dict[str, Any]:
    """The caller's records, newest first. Filtering by a run that is not the caller's is a 404, as for the
    run itself (a run of another user, or one that never existed and left the caller no records)."""
    deps, caller = deps_of(router), caller_of(router)
    page = deps.audit.query(
        caller.user_id,
        run_id=run_id,
        namespace=namespace,
        action=action,
        limit=limit,
        cursor=cursor,
    )
    if run_id and not cursor and not page.records and not _own_run(deps, caller, run_id):
        raise NotFound(f"no run {run_id!r}", field="run_id")
    return {"records": [r.model_dump(mode="json", exclude={"record_id"}) for r in page.records], "cursor": page.cursor}


def _own_run(deps: Deps, caller: Caller, run_id: str) -> bool:
    run = deps.runs.get_run(run_id)
    return run is not None and run.user_id == caller.user_id
