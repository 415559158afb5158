"""Following a list's cursors: to the last page, and never in a loop when a server repeats a cursor."""

from __future__ import annotations

import asyncio

import httpx

from mneme_client import AsyncClient, Client


def _looping_server(asked: list[str | None]) -> httpx.MockTransport:
    """Answers every page of agents with one agent and the same cursor, ``again``, for ever."""

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params.get("cursor"))
        return httpx.Response(200, json={"agents": [{"agent_id": f"a{len(asked)}"}], "cursor": "again"})

    return httpx.MockTransport(answer)


def _paged_server(asked: list[str | None]) -> httpx.MockTransport:
    pages = {None: ("p2", "a1"), "p2": ("p3", "a2"), "p3": (None, "a3")}

    def answer(request: httpx.Request) -> httpx.Response:
        cursor = request.url.params.get("cursor")
        asked.append(cursor)
        following, agent = pages[cursor]
        return httpx.Response(200, json={"agents": [{"agent_id": agent}], "cursor": following})

    return httpx.MockTransport(answer)


def test_every_page_is_followed_to_the_last() -> None:
    asked: list[str | None] = []
    with Client("http://mneme.test", "t", transport=_paged_server(asked)) as client:
        assert [a["agent_id"] for a in client.list_agents()] == ["a1", "a2", "a3"]
    assert asked == [None, "p2", "p3"]


def test_a_repeated_cursor_ends_the_pages_instead_of_looping() -> None:
    asked: list[str | None] = []
    with Client("http://mneme.test", "t", transport=_looping_server(asked)) as client:
        assert [a["agent_id"] for a in client.list_agents()] == ["a1", "a2"]
    assert asked == [None, "again"]


def test_the_async_client_stops_at_a_repeated_cursor_too() -> None:
    asked: list[str | None] = []

    async def scenario() -> list[str]:
        async with AsyncClient("http://mneme.test", "t", transport=_looping_server(asked)) as client:
            return [a["agent_id"] for a in await client.list_agents()]

    assert asyncio.run(scenario()) == ["a1", "a2"]
    assert asked == [None, "again"]
