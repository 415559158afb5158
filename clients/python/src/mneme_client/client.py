"""The synchronous client: ``Client(base_url, token)``; every method is one call of :mod:`mneme_client.calls`."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

import httpx

from mneme_client import calls, imports, models, retry
from mneme_client.calls import Call, RunStarted
from mneme_client.follow import Follow, is_page
from mneme_client.sse import FollowItem

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"


def api_base(url: str) -> str:
    """The server's root: ``url`` without trailing slashes or ``/v1`` — every call's path begins with ``/v1``, so a
    base URL ending in it (as the docs write each route) sent it twice: ``/v1/v1/agents``, "no such route"."""
    root = url.rstrip("/")
    return root.removesuffix("/v1").rstrip("/") if root.endswith("/v1") else root


def default_url() -> str:
    if os.environ.get("MNEME_URL"):
        return api_base(os.environ["MNEME_URL"])
    port = os.environ.get("MNEME_PORT")
    return f"http://127.0.0.1:{port}" if port else DEFAULT_URL


def auth_headers(token: str | None) -> dict[str, str]:
    token = token if token is not None else os.environ.get("MNEME_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else {}


class Client:
    """mneme's HTTP API. ``base_url`` (its ``/v1`` may be given) defaults to ``$MNEME_URL`` (else
    ``127.0.0.1:$MNEME_PORT``, else ``:8000``), ``token`` to ``$MNEME_TOKEN``. Errors raise
    :class:`mneme_client.ApiError`; a 429/503 is sent again after its ``Retry-After`` (at most ``retries``
    times, each wait at most ``max_retry_wait`` seconds) when sending it twice is safe (:mod:`mneme_client.retry`)."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        max_retry_wait: float = 60.0,
        on_retry: retry.OnRetry | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._retries, self._max_retry_wait = retries, max_retry_wait
        self._on_retry = on_retry  # told why and how long before each retry (the CLI says it on stderr)
        self._http = httpx.Client(
            base_url=api_base(base_url or default_url()),
            headers=auth_headers(token),
            timeout=timeout,
            transport=transport,
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def call(self, call: Call[T]) -> T:
        """Send ``call``, again after a 429/503's ``Retry-After`` or a lost connection when that is safe
        (:mod:`mneme_client.retry`), and read its answer."""
        attempt = 0
        while True:
            try:
                response = self._http.request(call.method, call.path, **call.options())
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
            time.sleep(wait)

    def health(self) -> dict[str, Any]:
        return self.call(calls.health())

    def every(self, page: Callable[[str | None], Call[calls.ListPage]]) -> list[dict[str, Any]]:
        """Every item of a paged list (``calls.list_agents``, ``calls.list_chats``), page after page."""
        items, cursor = self.call(page(None))
        while cursor:
            more, cursor = self.call(page(cursor))
            items += more
        return items

    def list_agents(self) -> list[dict[str, Any]]:
        return self.every(calls.list_agents)

    def get_agent(self, agent_id: str) -> calls.Tagged:
        return self.call(calls.get_agent(agent_id))

    def put_agent(
        self, agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None
    ) -> calls.Tagged:
        """Save the agent; ``if_match=get_agent(...).etag``: ApiError 412 rather than overwrite a change since."""
        return self.call(calls.put_agent(agent_id, agent, if_match=if_match))

    def agent_revisions(self, agent_id: str) -> list[dict[str, Any]]:
        """Every revision of the agent, newest first: restore one with ``put_agent(agent_id, r["agent"], ...)``."""
        return self.every(partial(calls.agent_revisions, agent_id))

    def delete_agent(self, agent_id: str) -> None:
        self.call(calls.delete_agent(agent_id))

    def start_run(self, agent_id: str, text: str, *, idempotency_key: str | None = None, **options: Any) -> RunStarted:
        """``POST /v1/runs``: a finished :class:`RunView` (fast path) or a :class:`RunAcceptedView` (202)."""
        return self.call(calls.start_run(agent_id, text, idempotency_key=idempotency_key, **options))

    def get_run(self, run_id: str) -> models.RunView:
        return self.call(calls.get_run(run_id))

    def run_events(self, run_id: str, **query: Any) -> models.EventsView:
        """One page of a run's events (``after``, ``cursor``, ``wait`` for a long-poll, ``tree``)."""
        return self.call(calls.run_events(run_id, **query))

    def all_events(self, run_id: str, *, tree: bool = False) -> models.EventsView:
        """Every event the run has committed so far, page after page (a tree page's cursor is never null: the
        last page is the one that brought nothing new); the answer's ``cursor`` continues from there."""
        page = self.run_events(run_id, tree=tree)
        events = list(page.events)
        while page.cursor and (page.events or not tree):
            page = self.run_events(run_id, cursor=page.cursor, tree=tree)
            events += page.events
        return page.model_copy(update={"events": events})

    def cancel_run(self, run_id: str) -> models.CancelView:
        return self.call(calls.cancel_run(run_id))

    def answer_approval(self, run_id: str, call_id: str, decision: str = "once") -> dict[str, Any]:
        """``decision``: ``once``, ``always`` (remembered for the agent and tool) or ``deny``."""
        return self.call(calls.answer_approval(run_id, call_id, decision))

    def list_runs(
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
        """One page of the caller's root runs, newest first; pass the page's ``cursor`` back for the next."""
        return self.call(
            calls.list_runs(
                status=status, agent_id=agent_id, chat_id=chat_id, since=since, until=until, limit=limit, cursor=cursor
            )
        )

    def iter_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        page_size: int | None = None,
    ) -> Iterator[models.RunSummaryView]:
        """Every run :meth:`list_runs` would list with these filters, page after page."""
        cursor: str | None = None
        while True:
            page = self.list_runs(
                status=status,
                agent_id=agent_id,
                chat_id=chat_id,
                since=since,
                until=until,
                limit=page_size,
                cursor=cursor,
            )
            yield from page.runs
            cursor = page.cursor
            if not cursor:
                return

    def follow(self, run_id: str, *, tree: bool = False) -> Iterator[FollowItem]:
        """The run's events (and text deltas) as the server streams them, until the run is final; a closed
        connection is resumed after the last event seen (``Last-Event-ID``), and a server that answers pages
        instead of a stream (a deployed stack) is long-polled (:mod:`mneme_client.follow`)."""
        state = Follow(run_id, tree)
        while not state.done:
            if state.polling:
                page = self.run_events(run_id, **state.poll_query())
                yield from state.page(page)
                if not page.events and not state.done and state.quiet(self.call(calls.run_status(run_id))):
                    yield from state.page(self.run_events(run_id, **state.poll_query(wait=False)))
                    return
                continue
            params, headers = state.stream_request()
            timeout = state.stream_timeout(self._http.timeout)
            lost: httpx.TransportError | None = None
            try:
                with self._http.stream("GET", state.path, params=params, headers=headers, timeout=timeout) as response:
                    if is_page(response):
                        response.read()  # an error, or the route's JSON page: the server does not stream
                        yield from state.page(calls.as_model(models.EventsView)(response))
                        continue
                    for line in response.iter_lines():
                        item = state.line(line)
                        if item is not None:
                            yield item
                        if state.done:
                            return
            except httpx.TransportError as error:  # a dropped or silent connection: resumed after the last event
                lost = error
            time.sleep(state.stream_closed(lost))

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

    def export_memory(self, namespaces: list[str] | None = None) -> Iterator[models.DocumentView]:
        """Every document of ``namespaces`` (default: every namespace the caller holds), page by page."""
        names = namespaces or [entry.namespace for entry in self.memory_namespaces().namespaces]
        for namespace in names:
            cursor: str | None = None
            while True:
                page = self.call(calls.memory_page(namespace, cursor))
                yield from page.documents
                cursor = page.cursor
                if not cursor:
                    break

    def list_chats(self) -> list[dict[str, Any]]:
        return self.every(calls.list_chats)

    def get_chat(self, chat_id: str, *, cursor: str | None = None) -> models.ChatView:
        return self.call(calls.get_chat(chat_id, cursor=cursor))

    def delete_chat(self, chat_id: str) -> None:
        self.call(calls.delete_chat(chat_id))
