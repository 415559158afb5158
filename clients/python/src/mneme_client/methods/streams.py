"""Following a run as it goes (``follow``), sync and async: a stream resumed when it drops, or long-polled pages
from a server that does not stream (:mod:`mneme_client.follow` keeps the state)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import httpx

from mneme_client import calls, models
from mneme_client.follow import Follow, is_page
from mneme_client.methods.runs import AsyncRuns, Runs
from mneme_client.sse import FollowItem


class Streams(Runs):
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


class AsyncStreams(AsyncRuns):
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
