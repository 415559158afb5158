"""Remembered approvals (issue 15.6): a person's ``always`` for (agent, tool), until revoked."""

from __future__ import annotations

from typing import Any

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import no_content, refusals
from mneme.api.run_views import answers
from mneme.api.views import RememberedApprovalsView
from mneme.engine.runs import remembered

router = new_router()


@router.get("/v1/me/approvals", responses=answers(200, RememberedApprovalsView))
def get_approvals() -> dict[str, Any]:
    """The tools the caller approved ``always``, per agent, across runs."""
    return remembered.list_remembered(deps_of(router), caller_of(router))


@router.delete(
    "/v1/me/approvals/<approval_id>", responses=refusals({404: "no remembered approval of the caller's with this id"})
)
def delete_approval(approval_id: str) -> Any:
    """Revoke a remembered approval: the next run of that agent asks again before using the tool."""
    remembered.revoke(deps_of(router), caller_of(router), approval_id)
    return no_content()
