"""What the sync and the async client share beneath their methods: the base URL and token, sending a
:class:`~mneme_client.calls.Call` (retried when that is safe, :mod:`mneme_client.retry`), and following a paged
list's cursors to its end. The methods themselves are mixins, one module per group of routes
(:mod:`mneme_client.methods`)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Protocol, TypeVar

import httpx

from mneme_client import calls, retry
from mneme_client.calls import Call

T = TypeVar("T")
P = TypeVar("P")
DEFAULT_URL = "http://127.0.0.1:8000"


class Paged(Protocol):
    @property
    def cursor(self) -> str | None: ...


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


def cursor_of(page: Paged) -> str | None:
    return page.cursor


def list_cursor(page: calls.ListPage) -> str | None:
    return page[1]


def next_cursor(cursor: str | None, seen: set[str]) -> str | None:
    """The cursor to ask for next: None at the end, and None too when the server answers a cursor it answered
    before (a server that repeats itself would otherwise be asked for the same page forever)."""
    if not cursor or cursor in seen:
        return None
    seen.add(cursor)
    return cursor


class SyncBase:
    """The synchronous transport: ``httpx.Client``, retries, pages."""

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

    def pages(self, page: Callable[[str | None], Call[P]], cursor: Callable[[P], str | None]) -> Iterator[P]:
        """Every page of a list, from the first, following each page's ``cursor`` until the last (or until the
        server repeats a cursor: never a loop)."""
        seen: set[str] = set()
        answer = self.call(page(None))
        yield answer
        following = next_cursor(cursor(answer), seen)
        while following:
            answer = self.call(page(following))
            yield answer
            following = next_cursor(cursor(answer), seen)

    def every(self, page: Callable[[str | None], Call[calls.ListPage]]) -> list[dict[str, Any]]:
        """Every item of a paged list (``calls.list_agents``, ``calls.list_chats``), page after page."""
        return [item for items, _ in self.pages(page, list_cursor) for item in items]


class AsyncBase:
    """The asynchronous transport: ``httpx.AsyncClient``, retries, pages."""

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

    async def aclose(self) -> None:
        await self._http.aclose()

    async def call(self, call: Call[T]) -> T:
        """As :meth:`SyncBase.call`: retried after a 429/503 or a lost connection when that is safe."""
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

    async def pages(self, page: Callable[[str | None], Call[P]], cursor: Callable[[P], str | None]) -> AsyncIterator[P]:
        """As :meth:`SyncBase.pages`."""
        seen: set[str] = set()
        answer = await self.call(page(None))
        yield answer
        following = next_cursor(cursor(answer), seen)
        while following:
            answer = await self.call(page(following))
            yield answer
            following = next_cursor(cursor(answer), seen)

    async def every(self, page: Callable[[str | None], Call[calls.ListPage]]) -> list[dict[str, Any]]:
        """Every item of a paged list (``calls.list_agents``, ``calls.list_chats``), page after page."""
        return [item async for items, _ in self.pages(page, list_cursor) for item in items]
