"""The asynchronous client: ``AsyncClient(base_url, token)``, the same methods as :class:`Client`, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

import httpx

from mneme_client import calls, imports, models, retry
from mneme_client.calls import Call, RunStarted
from mneme_client.client import api_base, auth_headers, default_url
from mneme_client.follow import Follow, is_page
from mneme_client.sse import FollowItem

T = TypeVar("T")


class AsyncClient:
    """mneme's HTTP API over ``httpx.AsyncClient``; see :class:`mneme_client.Client` for the defaults."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        max_retry_wait: float = 60.0,
        on_retry: retry.OnRetry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._retries, self._max_retry_wait = retries, max_retry_wait
        self._on_retry = on_retry  # told why and how long before each retry (the CLI says it on stderr)
        self._http = httpx.AsyncClient(
            base_url=api_base(base_url or default_url()),
            headers=auth_headers(token),
            timeout=timeout,
            transport=transport,
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def call(self, call: Call[T]) -> T:
        """As :meth:`mneme_client.Client.call`: retried after a 429/503 or a lost connection when that is safe."""
        attempt = 0
        while True:
            try:
                response = await self._http.request(call.method, call.path, **call.options())
            except httpx.TransportError as error:
                wait = retry.after_error(call, error, attempt, self._retries)
                if wait is None:
                    raise
                reason = f"{type(error).__name__}: {error}"
            else:
                wait = retry.after_answer(call, response, attempt, self._retries, self._max_retry_wait)
                if wait is None:
                    return call.parse(response)
                reason = retry.said(response)
            attempt += 1
            if self._on_retry is not None:
                self._on_retry(f"{call.method} {call.path}: {reason}", wait)
            await asyncio.sleep(wait)

    async def health(self) -> dict[str, Any]:
        return await self.call(calls.health())

    async def every(self, page: Callable[[str | None], Call[calls.ListPage]]) -> list[dict[str, Any]]:
        """Every item of a paged list (``calls.list_agents``, ``calls.list_chats``), page after page."""
        items, cursor = await self.call(page(None))
        while cursor:
            more, cursor = await self.call(page(cursor))
            items += more
        return items

    async def list_agents(self) -> list[dict[str, Any]]:
        return await self.every(calls.list_agents)

    async def get_agent(self, agent_id: str) -> calls.Tagged:
        return await self.call(calls.get_agent(agent_id))

    async def put_agent(
        self, agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the agent; ``if_match=get_agent(...).etag``: ApiError 412 rather than overwrite a change since."""
        return await self.call(calls.put_agent(agent_id, agent, if_match=if_match))

    async def agent_revisions(self, agent_id: str) -> list[dict[str, Any]]:
        """Every revision of the agent, newest first: restore one with ``put_agent(agent_id, r["agent"], ...)``."""
        return await self.every(partial(calls.agent_revisions, agent_id))

    async def delete_agent(self, agent_id: str) -> None:
        await self.call(calls.delete_agent(agent_id))

    async def start_run(
        self, agent_id: str, text: str, *, idempotency_key: str | None = None, **options: Any
    ) -> RunStarted:
        return await self.call(calls.start_run(agent_id, text, idempotency_key=idempotency_key, **options))

    async def get_run(self, run_id: str) -> models.RunView:
        return await self.call(calls.get_run(run_id))

    async def run_events(self, run_id: str, **query: Any) -> models.EventsView:
        return await self.call(calls.run_events(run_id, **query))

    async def all_events(self, run_id: str, *, tree: bool = False) -> models.EventsView:
        """Every event the run has committed so far, page after page (a tree page's cursor is never null: the
        last page is the one that brought nothing new); the answer's ``cursor`` continues from there."""
        page = await self.run_events(run_id, tree=tree)
        events = list(page.events)
        while page.cursor and (page.events or not tree):
            page = await self.run_events(run_id, cursor=page.cursor, tree=tree)
            events += page.events
        return page.model_copy(update={"events": events})

    async def cancel_run(self, run_id: str) -> models.CancelView:
        return await self.call(calls.cancel_run(run_id))

    async def answer_approval(self, run_id: str, call_id: str, decision: str = "once") -> dict[str, Any]:
        """``decision``: ``once``, ``always`` (remembered for the agent and tool) or ``deny``."""
        return await self.call(calls.answer_approval(run_id, call_id, decision))

    async def list_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> models.RunListView:
        return await self.call(
            calls.list_runs(
                status=status, agent_id=agent_id, chat_id=chat_id, since=since, until=until, limit=limit, cursor=cursor
            )
        )

    async def iter_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[models.RunSummaryView]:
        """As :meth:`Client.iter_runs`: every matching run, page after page."""
        cursor: str | None = None
        while True:
            page = await self.list_runs(
                status=status,
                agent_id=agent_id,
                chat_id=chat_id,
                since=since,
                until=until,
                limit=page_size,
                cursor=cursor,
            )
            for run in page.runs:
                yield run
            cursor = page.cursor
            if not cursor:
                return

    async def follow(self, run_id: str, *, tree: bool = False) -> AsyncIterator[FollowItem]:
        """As :meth:`Client.follow`: events and deltas until the run is final, resuming a closed stream, or
        long-polling a server that answers pages instead of a stream."""
        state = Follow(run_id, tree)
        while not state.done:
            if state.polling:
                page = await self.run_events(run_id, **state.poll_query())
                for event in state.page(page):
                    yield event
                if not page.events and not state.done and state.quiet(await self.call(calls.run_status(run_id))):
                    for event in state.page(await self.run_events(run_id, **state.poll_query(wait=False))):
                        yield event
                    return
                continue
            params, headers = state.stream_request()
            timeout = state.stream_timeout(self._http.timeout)
            lost: httpx.TransportError | None = None
            try:
                async with self._http.stream(
                    "GET", state.path, params=params, headers=headers, timeout=timeout
                ) as response:
                    if is_page(response):
                        await response.aread()  # an error, or the route's JSON page: the server does not stream
                        for event in state.page(calls.as_model(models.EventsView)(response)):
                            yield event
                        continue
                    async for line in response.aiter_lines():
                        item = state.line(line)
                        if item is not None:
                            yield item
                        if state.done:
                            return
            except httpx.TransportError as error:  # a dropped or silent connection: resumed after the last event
                lost = error
            await asyncio.sleep(state.stream_closed(lost))

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

    async def export_memory(self, namespaces: list[str] | None = None) -> AsyncIterator[models.DocumentView]:
        names = namespaces or [entry.namespace for entry in (await self.memory_namespaces()).namespaces]
        for namespace in names:
            cursor: str | None = None
            while True:
                page = await self.call(calls.memory_page(namespace, cursor))
                for document in page.documents:
                    yield document
                cursor = page.cursor
                if not cursor:
                    break

    async def list_chats(self) -> list[dict[str, Any]]:
        return await self.every(calls.list_chats)

    async def get_chat(self, chat_id: str, *, cursor: str | None = None) -> models.ChatView:
        return await self.call(calls.get_chat(chat_id, cursor=cursor))

    async def delete_chat(self, chat_id: str) -> None:
        await self.call(calls.delete_chat(chat_id))
