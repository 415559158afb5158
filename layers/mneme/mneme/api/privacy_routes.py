"""Privacy (issue 18): export, erasure with a receipt, the audit chain's verification, the retention."""

from __future__ import annotations

from typing import Any

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.presenters import erasure_answer, export_status_view
from mneme.api.privacy_views import ChainReportView, ErasureView, ExportView, RetentionView
from mneme.api.responses import json_response, refusals
from mneme.api.run_views import answers
from mneme.engine.privacy import erasure, export
from mneme.engine.views.audit_reads import verify_audit
from mneme.engine.views.retention import retention_view

router = new_router()
_NOT_CONFIGURED = "`store_unavailable`: this deployment has no {} (or it cannot be reached); retry after Retry-After"
_ADMINS = "the caller is not an admin"
_ERASURE = {
    **answers(200, ErasureView, "the erasure is done: its receipt"),
    **answers(202, ErasureView, "the erasure continues in the background (GET …/erasure for the receipt)"),
    **refusals({503: _NOT_CONFIGURED.format("erasure worker")}),
}
_NO_ERASURE = "no erasure of this user was requested"


@router.post(
    "/v1/me/export",
    responses={
        **answers(202, ExportView, "the export was requested (it may be ready)"),
        **refusals({503: _NOT_CONFIGURED.format("export bucket or worker")}),
    },
)
def post_export() -> Any:
    """Export everything mneme holds for the caller as an NDJSON archive (built asynchronously)."""
    return json_response(202, export_status_view(export.request_export(deps_of(router), caller_of(router))))


@router.get(
    "/v1/me/exports/<export_id>",
    responses={
        **answers(200, ExportView),
        **refusals({404: "no export of the caller's with this id", 503: _NOT_CONFIGURED.format("export bucket")}),
    },
)
def get_export(export_id: str) -> dict[str, Any]:
    """The export's status; once ready, a download URL valid for a short while."""
    return export.export_view(deps_of(router), caller_of(router), export_id)


@router.delete("/v1/me", responses=_ERASURE)
def delete_me() -> Any:
    """Erase everything of the caller (the audit records are kept, their details redacted); answers a receipt."""
    return erasure_answer(erasure.request_erasure(deps_of(router), caller_of(router)))


@router.get("/v1/me/erasure", responses={**answers(200, ErasureView), **refusals({404: _NO_ERASURE})})
def get_my_erasure() -> dict[str, Any]:
    """The caller's latest erasure: its progress, or its receipt."""
    return erasure.erasure_state(deps_of(router), caller_of(router)).receipt()


@router.delete("/v1/admin/users/<user_id>", responses={**_ERASURE, **refusals({403: _ADMINS})})
def delete_user(user_id: str) -> Any:
    """An admin erases a named user (audited in both the admin's and the user's trail)."""
    return erasure_answer(erasure.request_erasure(deps_of(router), caller_of(router), user_id))


@router.get(
    "/v1/admin/users/<user_id>/erasure",
    responses={**answers(200, ErasureView), **refusals({403: _ADMINS, 404: _NO_ERASURE})},
)
def get_user_erasure(user_id: str) -> dict[str, Any]:
    return erasure.erasure_state(deps_of(router), caller_of(router), user_id).receipt()


@router.get("/v1/audit/verify", responses=answers(200, ChainReportView))
def get_audit_verify() -> dict[str, Any]:
    """Check the caller's audit hash chain; ``first_broken`` names the first link that does not verify."""
    return verify_audit(deps_of(router), caller_of(router)).model_dump(mode="json")


@router.get("/v1/retention", responses=answers(200, RetentionView))
def get_retention() -> dict[str, Any]:
    """How long this deployment keeps each kind of data (days; 0 = until deleted)."""
    return retention_view(deps_of(router), caller_of(router))
