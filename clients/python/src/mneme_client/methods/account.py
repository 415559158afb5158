"""The caller's account and privacy: remembered approvals, exports, erasure, retention, the audit log and its
chain's check, the API's description; sync and async."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from functools import partial
from typing import Any

from mneme_client import calls, models
from mneme_client.transport import AsyncBase, SyncBase, cursor_of


class Account(SyncBase):
    def remembered_approvals(self) -> list[models.RememberedApprovalView]:
        """The tools the caller answered ``always`` for (``answer_approval(..., "always")``)."""
        return self.call(calls.remembered_approvals()).approvals

    def revoke_approval(self, approval_id: str) -> None:
        """Forget a remembered approval: the agent asks again before it next calls that tool."""
        self.call(calls.revoke_approval(approval_id))

    def request_export(self) -> models.ExportView:
        """Start an archive of everything of the caller's; poll :meth:`get_export` until ``ready``."""
        return self.call(calls.request_export())

    def get_export(self, export_id: str) -> models.ExportView:
        return self.call(calls.get_export(export_id))

    def download_export(self, export: models.ExportView | str) -> Iterator[dict[str, Any]]:
        """Every record of a ready export's NDJSON archive (``export``: its id, or its view — read again when it
        has no ``download_url``, as ``request_export``'s answer has not); ClientError while it is not ready. The
        client's token goes only to the API's own origin, never to a presigned URL."""
        view = export if isinstance(export, models.ExportView) and export.download_url else None
        view = view or self.get_export(export if isinstance(export, str) else export.export_id)  # the URL is fresh
        response = self._http.send(calls.download_request(self._http, calls.download_url(view)), stream=True)
        try:
            if response.status_code >= 400:
                response.read()
                calls.checked(response)
            for line in response.iter_lines():
                record = calls.ndjson_record(line)
                if record is not None:
                    yield record
        finally:
            response.close()

    def erase_me(self) -> models.ErasureView:
        """Erase everything of the caller's (``status`` ``done``, or ``running``: poll :meth:`my_erasure`)."""
        return self.call(calls.erase_me())

    def my_erasure(self) -> models.ErasureView:
        return self.call(calls.my_erasure())

    def erase_user(self, user_id: str) -> models.ErasureView:
        """Admins only: erase everything of ``user_id``."""
        return self.call(calls.erase_user(user_id))

    def user_erasure(self, user_id: str) -> models.ErasureView:
        return self.call(calls.user_erasure(user_id))

    def retention(self) -> models.RetentionView:
        return self.call(calls.retention())

    def audit_page(self, **filters: Any) -> models.AuditPageView:
        """One page of the caller's audit records (``run_id``, ``namespace``, ``action``, ``limit``, ``cursor``)."""
        return self.call(calls.audit_page(**filters))

    def iter_audit(
        self,
        *,
        run_id: str | None = None,
        namespace: str | None = None,
        action: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[models.AuditRecordView]:
        """Every audit record :meth:`audit_page` would list with these filters, page after page."""
        page = partial(_audit_page, run_id=run_id, namespace=namespace, action=action, limit=page_size)
        for answer in self.pages(page, cursor_of):
            yield from answer.records

    def verify_audit(self) -> models.ChainReportView:
        return self.call(calls.verify_audit())

    def openapi(self) -> dict[str, Any]:
        return self.call(calls.openapi())


class AsyncAccount(AsyncBase):
    async def remembered_approvals(self) -> list[models.RememberedApprovalView]:
        return (await self.call(calls.remembered_approvals())).approvals

    async def revoke_approval(self, approval_id: str) -> None:
        await self.call(calls.revoke_approval(approval_id))

    async def request_export(self) -> models.ExportView:
        return await self.call(calls.request_export())

    async def get_export(self, export_id: str) -> models.ExportView:
        return await self.call(calls.get_export(export_id))

    async def download_export(self, export: models.ExportView | str) -> AsyncIterator[dict[str, Any]]:
        view = export if isinstance(export, models.ExportView) and export.download_url else None
        view = view or await self.get_export(export if isinstance(export, str) else export.export_id)
        response = await self._http.send(calls.download_request(self._http, calls.download_url(view)), stream=True)
        try:
            if response.status_code >= 400:
                await response.aread()
                calls.checked(response)
            async for line in response.aiter_lines():
                record = calls.ndjson_record(line)
                if record is not None:
                    yield record
        finally:
            await response.aclose()

    async def erase_me(self) -> models.ErasureView:
        return await self.call(calls.erase_me())

    async def my_erasure(self) -> models.ErasureView:
        return await self.call(calls.my_erasure())

    async def erase_user(self, user_id: str) -> models.ErasureView:
        return await self.call(calls.erase_user(user_id))

    async def user_erasure(self, user_id: str) -> models.ErasureView:
        return await self.call(calls.user_erasure(user_id))

    async def retention(self) -> models.RetentionView:
        return await self.call(calls.retention())

    async def audit_page(self, **filters: Any) -> models.AuditPageView:
        return await self.call(calls.audit_page(**filters))

    async def iter_audit(
        self,
        *,
        run_id: str | None = None,
        namespace: str | None = None,
        action: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[models.AuditRecordView]:
        page = partial(_audit_page, run_id=run_id, namespace=namespace, action=action, limit=page_size)
        async for answer in self.pages(page, cursor_of):
            for record in answer.records:
                yield record

    async def verify_audit(self) -> models.ChainReportView:
        return await self.call(calls.verify_audit())

    async def openapi(self) -> dict[str, Any]:
        return await self.call(calls.openapi())


def _audit_page(cursor: str | None, **filters: Any) -> calls.Call[models.AuditPageView]:
    return calls.audit_page(cursor=cursor, **filters)
