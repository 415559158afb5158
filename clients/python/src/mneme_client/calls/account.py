"""Calls of the caller's account and privacy: remembered approvals, exports, erasure, retention, the audit log
(and its chain's check), and the API's own description."""

from __future__ import annotations

import json
from typing import Any

import httpx

from mneme_client import models
from mneme_client.calls.base import Call, as_dict, as_model, as_nothing, compact, seg
from mneme_client.errors import ClientError


def remembered_approvals() -> Call[models.RememberedApprovalsView]:
    """The tools the caller answered ``always`` for, by agent."""
    return Call("GET", "/v1/me/approvals", as_model(models.RememberedApprovalsView))


def revoke_approval(approval_id: str) -> Call[None]:
    """Forget a remembered approval: the agent asks again before it next calls the tool."""
    return Call("DELETE", f"/v1/me/approvals/{seg(approval_id)}", as_nothing)


def request_export() -> Call[models.ExportView]:
    """``POST /v1/me/export``: an archive of everything of the caller's, made in the background (202)."""
    return Call("POST", "/v1/me/export", as_model(models.ExportView))


def get_export(export_id: str) -> Call[models.ExportView]:
    return Call("GET", f"/v1/me/exports/{seg(export_id)}", as_model(models.ExportView))


def erase_me() -> Call[models.ErasureView]:
    """``DELETE /v1/me``: erase everything of the caller's (200 when done, 202 while it runs)."""
    return Call("DELETE", "/v1/me", as_model(models.ErasureView))


def my_erasure() -> Call[models.ErasureView]:
    return Call("GET", "/v1/me/erasure", as_model(models.ErasureView))


def erase_user(user_id: str) -> Call[models.ErasureView]:
    """Admins only: erase everything of ``user_id``."""
    return Call("DELETE", f"/v1/admin/users/{seg(user_id)}", as_model(models.ErasureView))


def user_erasure(user_id: str) -> Call[models.ErasureView]:
    """Admins only: the receipt of ``user_id``'s erasure."""
    return Call("GET", f"/v1/admin/users/{seg(user_id)}/erasure", as_model(models.ErasureView))


def retention() -> Call[models.RetentionView]:
    """How many days each kind of data is kept."""
    return Call("GET", "/v1/retention", as_model(models.RetentionView))


def audit_page(
    *,
    run_id: str | None = None,
    namespace: str | None = None,
    action: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[models.AuditPageView]:
    """``GET /v1/audit``: a page of the caller's audit records, newest first, filtered."""
    params = compact(run_id=run_id, namespace=namespace, action=action, limit=limit, cursor=cursor)
    return Call("GET", "/v1/audit", as_model(models.AuditPageView), params=params)


def verify_audit() -> Call[models.ChainReportView]:
    """``GET /v1/audit/verify``: whether the caller's audit chain is whole (no record changed or missing)."""
    return Call("GET", "/v1/audit/verify", as_model(models.ChainReportView))


def openapi() -> Call[dict[str, Any]]:
    """``GET /v1/openapi.json``: the API's OpenAPI document (the client's models are generated from it)."""
    return Call("GET", "/v1/openapi.json", as_dict)


def download_url(export: models.ExportView) -> str:
    """The archive's URL of a ready export (:class:`ClientError` before: there is nothing to download yet)."""
    if export.status != "ready" or not export.download_url:
        raise ClientError(f"export {export.export_id} is {export.status}, not ready: nothing to download yet")
    return export.download_url


def download_request(http: httpx.Client | httpx.AsyncClient, url: str) -> httpx.Request:
    """``GET url`` with the client's token only on the API's own origin (the local server serves the archive
    to its owner); a presigned URL (S3) carries its own authority, and must not be sent the caller's token."""
    request = http.build_request("GET", url)
    target, base = request.url, http.base_url
    if (target.scheme, target.host, target.port) != (base.scheme, base.host, base.port):
        request.headers.pop("Authorization", None)
    return request


def ndjson_record(line: str) -> dict[str, Any] | None:
    """One line of an export's archive: a record, or None for a blank line."""
    return dict(json.loads(line)) if line.strip() else None
