"""``all_events`` ends when a server answers, with events, a cursor it answered before, instead of asking for
the same page for ever (sync and async)."""

from __future__ import annotations

import asyncio

import httpx

from mneme_client import AsyncClient, Client
from mneme_client.models import EventsView


def _stuck(asked: list[str | None]) -> httpx.MockTransport:
    """Every page: one event and the cursor ``c1``, whatever was asked."""

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params.get("cursor"))
        event = {"seq": len(asked), "type": "step", "at": "now", "run_id": "r1"}
        return httpx.Response(200, content=EventsView(events=[event], cursor="c1").model_dump_json())

    return httpx.MockTransport(answer)


def test_all_events_stops_at_a_repeated_cursor() -> None:
    asked: list[str | None] = []
    with Client("http://mneme.test", "t", transport=_stuck(asked)) as client:
        assert [e.seq for e in client.all_events("r1").events] == [1, 2]
    assert asked == [None, "c1"]


def test_the_async_all_events_stops_at_a_repeated_cursor() -> None:
    asked: list[str | None] = []

    async def scenario() -> list[int]:
        async with AsyncClient("http://mneme.test", "t", transport=_stuck(asked)) as client:
            return [e.seq for e in (await client.all_events("r1", tree=True)).events]

    assert asyncio.run(scenario()) == [1, 2]
    assert asked == [None, "c1"]
