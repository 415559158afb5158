"""Long-term memory: search, write, import, export, sync and async."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from mneme_client import calls, imports, models
from mneme_client.transport import AsyncBase, SyncBase, cursor_of


class Memory(SyncBase):
    def search_memory(self, query: str, **options: Any) -> models.SearchView:
        """``options``: those of :func:`mneme_client.calls.search_memory` (``namespaces``, ``top_k``, ``lines``,
        ``retrieval``, ``explain``, ``as_of``)."""
        return self.call(calls.search_memory(query, **options))

    def write_memory(self, namespace: str, content: str, **options: Any) -> models.DocumentsView:
        """``options``: ``tags``, ``ttl_seconds``, ``observed_at`` (:func:`mneme_client.calls.write_memory`)."""
        return self.call(calls.write_memory(namespace, content, **options))

    def write_memory_batch(self, items: Sequence[Mapping[str, Any]]) -> models.BatchResultsView:
        """Up to 100 entries, each answered by its index (``calls.write_memory_batch``)."""
        return self.call(calls.write_memory_batch(items))

    def import_memory(
        self, items: Iterable[Mapping[str, Any]], *, namespace: str | None = None
    ) -> Iterator[models.BatchItemResult]:
        """Every item stored in batches of 100, each result with the item's index in ``items`` (in the order
        entries are complete); an item without its own client token gets one from its namespace, moment and
        content, so importing the same items again stores nothing twice (``replayed``); an export's chunks are
        stored as the one entry they were (:mod:`mneme_client.imports`)."""
        for batch in imports.import_batches(items, namespace=namespace):
            items_sent = imports.sent(batch)
            answered = self.write_memory_batch(items_sent).results if items_sent else []
            yield from imports.import_results(batch, answered)

    def memory_namespaces(self) -> models.NamespacesView:
        return self.call(calls.memory_namespaces())

    def list_documents(
        self, namespace: str, *, status: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> models.DocumentPageView:
        """One page of a namespace's entries (``status``: ``active``, ``superseded``, ``deleted``; default all)."""
        return self.call(calls.memory_page(namespace, cursor, limit=limit, status=status))

    def iter_documents(
        self, namespace: str, *, status: str | None = None, page_size: int | None = None
    ) -> Iterator[models.DocumentView]:
        """Every entry :meth:`list_documents` would list, page after page."""
        page = partial(calls.memory_page, namespace, limit=page_size, status=status)
        for answer in self.pages(page, cursor_of):
            yield from answer.documents

    def export_memory(self, namespaces: list[str] | None = None) -> Iterator[models.DocumentView]:
        """Every document of ``namespaces`` (default: every namespace the caller holds), page by page."""
        names = namespaces or [entry.namespace for entry in self.memory_namespaces().namespaces]
        for namespace in names:
            for page in self.pages(partial(calls.memory_page, namespace), cursor_of):
                yield from page.documents


class AsyncMemory(AsyncBase):
    async def search_memory(self, query: str, **options: Any) -> models.SearchView:
        """``options``: those of :func:`mneme_client.calls.search_memory` (``namespaces``, ``top_k``, ``lines``,
        ``retrieval``, ``explain``, ``as_of``)."""
        return await self.call(calls.search_memory(query, **options))

    async def write_memory(self, namespace: str, content: str, **options: Any) -> models.DocumentsView:
        """``options``: ``tags``, ``ttl_seconds``, ``observed_at`` (:func:`mneme_client.calls.write_memory`)."""
        return await self.call(calls.write_memory(namespace, content, **options))

    async def write_memory_batch(self, items: Sequence[Mapping[str, Any]]) -> models.BatchResultsView:
        return await self.call(calls.write_memory_batch(items))

    async def import_memory(
        self, items: Iterable[Mapping[str, Any]], *, namespace: str | None = None
    ) -> AsyncIterator[models.BatchItemResult]:
        """As :meth:`mneme_client.Client.import_memory`."""
        for batch in imports.import_batches(items, namespace=namespace):
            items_sent = imports.sent(batch)
            answered = (await self.write_memory_batch(items_sent)).results if items_sent else []
            for result in imports.import_results(batch, answered):
                yield result

    async def memory_namespaces(self) -> models.NamespacesView:
        return await self.call(calls.memory_namespaces())

    async def list_documents(
        self, namespace: str, *, status: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> models.DocumentPageView:
        return await self.call(calls.memory_page(namespace, cursor, limit=limit, status=status))

    async def iter_documents(
        self, namespace: str, *, status: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[models.DocumentView]:
        page = partial(calls.memory_page, namespace, limit=page_size, status=status)
        async for answer in self.pages(page, cursor_of):
            for document in answer.documents:
                yield document

    async def export_memory(self, namespaces: list[str] | None = None) -> AsyncIterator[models.DocumentView]:
        names = namespaces or [entry.namespace for entry in (await self.memory_namespaces()).namespaces]
        for namespace in names:
            async for page in self.pages(partial(calls.memory_page, namespace), cursor_of):
                for document in page.documents:
                    yield document
