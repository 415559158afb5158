"""One memory entry at a time: read, change, delete (each with ``if_match``), its revisions, and why it is or is
not recalled; sync and async."""

from __future__ import annotations

from typing import Any

from mneme_client import calls, models
from mneme_client.calls import TaggedDocument
from mneme_client.transport import AsyncBase, SyncBase


class Documents(SyncBase):
    def get_document(self, doc_id: str, *, derived: bool = False) -> TaggedDocument:
        """The entry with its ``etag`` (``derived``: with the entries made from it)."""
        return self.call(calls.get_document(doc_id, derived=derived))

    def patch_document(
        self, doc_id: str, patch: models.DocumentPatch | dict[str, Any], *, if_match: str | None = None
    ) -> TaggedDocument:
        """Change ``content``, ``status`` or ``tags``; ``if_match=get_document(...).etag``: ApiError 412 rather
        than undo a change made since."""
        return self.call(calls.patch_document(doc_id, patch, if_match=if_match))

    def delete_document(self, doc_id: str, *, namespace: str | None = None, if_match: str | None = None) -> None:
        """``if_match``: ApiError 412 (nothing deleted) if the entry changed since it was read."""
        self.call(calls.delete_document(doc_id, namespace=namespace, if_match=if_match))

    def document_revisions(self, doc_id: str) -> models.RevisionsView:
        return self.call(calls.document_revisions(doc_id))

    def explain_memory(
        self, query: str, memory_id: str, *, agent_id: str | None = None, task_id: str | None = None
    ) -> models.ExplainView:
        """Why the entry is (or is not) recalled for ``query``: by a search, or by the agent's (task's) runs."""
        return self.call(calls.explain_memory(query, memory_id, agent_id=agent_id, task_id=task_id))


class AsyncDocuments(AsyncBase):
    async def get_document(self, doc_id: str, *, derived: bool = False) -> TaggedDocument:
        return await self.call(calls.get_document(doc_id, derived=derived))

    async def patch_document(
        self, doc_id: str, patch: models.DocumentPatch | dict[str, Any], *, if_match: str | None = None
    ) -> TaggedDocument:
        return await self.call(calls.patch_document(doc_id, patch, if_match=if_match))

    async def delete_document(self, doc_id: str, *, namespace: str | None = None, if_match: str | None = None) -> None:
        await self.call(calls.delete_document(doc_id, namespace=namespace, if_match=if_match))

    async def document_revisions(self, doc_id: str) -> models.RevisionsView:
        return await self.call(calls.document_revisions(doc_id))

    async def explain_memory(
        self, query: str, memory_id: str, *, agent_id: str | None = None, task_id: str | None = None
    ) -> models.ExplainView:
        return await self.call(calls.explain_memory(query, memory_id, agent_id=agent_id, task_id=task_id))
