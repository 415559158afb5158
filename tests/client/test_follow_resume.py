"""Following a run to its end whatever the connection does: a server that answers JSON pages instead of a stream
(a deployed stack's HTTP API), streams closed again and again, and an event cut off by a closed connection."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from mneme_client import AsyncClient, Client, ClientError
from mneme_client.follow import MAX_RECONNECTS, STREAM_READ_SECONDS
from mneme_client.models import EventView

Answer = Callable[[httpx.Request], httpx.Response]


def _client(answer: Answer) -> Client:
    return Client("http://mneme.test", "t", transport=httpx.MockTransport(answer))


def _event(seq: int, kind: str = "step", **extra: Any) -> dict[str, Any]:
    return {"seq": seq, "type": kind, "at": "now", **extra}


def _sse(seq: int, kind: str = "step") -> str:
    return f"id: {seq}\nevent: run_event\ndata: {json.dumps(_event(seq, kind))}\n\n"


def _page(events: list[dict[str, Any]], cursor: str | None = None) -> httpx.Response:
    # what the Lambda answers whatever the Accept header: the route's JSON page
    return httpx.Response(200, json={"events": events, "cursor": cursor})


def _lambda(pages: dict[str, httpx.Response], status: str = "running") -> tuple[Answer, list[str]]:
    """A server answering each events request's query string from ``pages`` (and ``GET`` of the run)."""
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/runs/r1":
            seen.append("GET run")
            return httpx.Response(200, json={"run_id": "r1", "status": status})
        query = request.url.query.decode()
        seen.append(query)
        return pages.get(query) or _page([])

    return answer, seen


def test_a_server_that_answers_pages_is_long_polled_after_the_last_seq_to_the_completed_event() -> None:
    answer, seen = _lambda(
        {
            "": _page([_event(1, "run_started")]),
            "after=1&wait=20&limit=1000": _page([_event(2), _event(3, "completed")]),
        }
    )
    with _client(answer) as client:
        items = list(client.follow("r1"))
    assert [(i.seq, i.type) for i in items if isinstance(i, EventView)] == [
        (1, "run_started"),
        (2, "step"),
        (3, "completed"),
    ]
    assert seen == ["", "after=1&wait=20&limit=1000"]


def test_a_polled_run_found_final_with_nothing_new_is_read_once_more_then_the_follow_ends() -> None:
    answer, seen = _lambda(
        {"": _page([_event(1, "run_started")]), "after=1&limit=1000": _page([_event(2, "failed_step")])},
        status="failed",
    )
    with _client(answer) as client:
        items = list(client.follow("r1"))
    assert [i.seq for i in items if isinstance(i, EventView)] == [1, 2]
    assert seen == ["", "after=1&wait=20&limit=1000", "GET run", "after=1&limit=1000"]


def test_a_polled_tree_continues_from_each_pages_tree_cursor_and_ends_at_its_roots_completed_event() -> None:
    child_done = _event(1, "completed", run_id="child", depth=1)
    answer, seen = _lambda(
        {
            "tree=true": _page([_event(1, "run_started", run_id="r1", depth=0)], cursor="c1"),
            "cursor=c1&wait=20&tree=true&limit=1000": _page([child_done], cursor="c2"),
            "cursor=c2&wait=20&tree=true&limit=1000": _page([_event(2, "completed", run_id="r1", depth=0)], "c3"),
        }
    )
    with _client(answer) as client:
        items = [i for i in client.follow("r1", tree=True) if isinstance(i, EventView)]
    assert [(i.model_extra or {}).get("run_id") for i in items] == ["r1", "child", "r1"]
    assert seen[-1] == "cursor=c2&wait=20&tree=true&limit=1000"


def test_the_async_client_long_polls_a_server_that_answers_pages_too() -> None:
    answer, seen = _lambda(
        {"": _page([_event(1, "run_started")]), "after=1&wait=20&limit=1000": _page([_event(2, "completed")])}
    )

    async def follow() -> list[int]:
        async with AsyncClient("http://mneme.test", "t", transport=httpx.MockTransport(answer)) as client:
            return [item.seq async for item in client.follow("r1") if isinstance(item, EventView)]

    assert asyncio.run(follow()) == [1, 2]
    assert seen == ["", "after=1&wait=20&limit=1000"]


def test_streams_that_close_after_every_event_are_followed_to_the_end_however_many() -> None:
    """A run that outlives many stream lifetimes (the local server closes one after 10 minutes; an approval may
    wait hours) is followed as long as each stream brought an event."""
    count = MAX_RECONNECTS * 2
    resumed: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        resumed.append(request.headers.get("Last-Event-ID"))
        seq = len(resumed)
        body = _sse(seq, "completed") + "event: end\ndata: {}\n\n" if seq == count else _sse(seq)
        return httpx.Response(200, text=body, headers={"Content-Type": "text/event-stream"})

    with _client(answer) as client:
        items = [i.seq for i in client.follow("r1") if isinstance(i, EventView)]
    assert items == list(range(1, count + 1))
    assert resumed == [None, *(str(n) for n in range(1, count))]


def test_streams_closing_again_and_again_without_an_event_are_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    streams = [_sse(1)] + [""] * MAX_RECONNECTS
    calls: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, text=streams[len(calls) - 1], headers={"Content-Type": "text/event-stream"})

    with _client(answer) as client, pytest.raises(ClientError, match="without an event"):
        list(client.follow("r1"))
    assert len(calls) == 1 + MAX_RECONNECTS


def test_an_event_cut_off_by_a_closed_stream_is_resumed_before_it_whole_not_skipped_or_merged() -> None:
    resumed: list[str | None] = []
    cut = 'id: 2\nevent: run_event\ndata: {"seq": 2, "ty'  # the connection closed mid-event: no blank line
    streams = [_sse(1) + cut, _sse(2) + _sse(3, "completed") + "event: end\ndata: {}\n\n"]

    def answer(request: httpx.Request) -> httpx.Response:
        resumed.append(request.headers.get("Last-Event-ID"))
        return httpx.Response(200, text=streams[len(resumed) - 1], headers={"Content-Type": "text/event-stream"})

    with _client(answer) as client:
        items = [i.seq for i in client.follow("r1") if isinstance(i, EventView)]
    assert resumed == [None, "1"]
    assert items == [1, 2, 3]


class _DropsAfter(httpx.SyncByteStream):
    """A stream body that sends ``sent`` and then fails as a dead connection does (a read that timed out)."""

    def __init__(self, sent: str) -> None:
        self.sent = sent

    def __iter__(self) -> Iterator[bytes]:
        yield self.sent.encode()
        raise httpx.ReadTimeout("timed out")


def test_a_stream_whose_connection_dies_is_resumed_after_its_last_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    resumed: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        resumed.append(request.headers.get("Last-Event-ID"))
        if len(resumed) == 1:
            return httpx.Response(200, stream=_DropsAfter(_sse(1)), headers={"Content-Type": "text/event-stream"})
        body = _sse(2, "completed") + "event: end\ndata: {}\n\n"
        return httpx.Response(200, text=body, headers={"Content-Type": "text/event-stream"})

    with _client(answer) as client:
        items = [i.seq for i in client.follow("r1") if isinstance(i, EventView)]
    assert resumed == [None, "1"]
    assert items == [1, 2]


@pytest.mark.parametrize(("client_timeout", "read"), [(5.0, STREAM_READ_SECONDS), (120.0, 120.0)])
def test_a_stream_is_read_with_a_timeout_past_the_servers_keep_alive_never_none(
    client_timeout: float, read: float
) -> None:
    reads: list[float | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        reads.append(request.extensions["timeout"]["read"])
        body = _sse(1, "completed") + "event: end\ndata: {}\n\n"
        return httpx.Response(200, text=body, headers={"Content-Type": "text/event-stream"})

    with Client("http://mneme.test", "t", timeout=client_timeout, transport=httpx.MockTransport(answer)) as client:
        list(client.follow("r1"))
    assert reads == [read]


def test_streams_that_send_only_keep_alives_before_closing_are_resumed_however_many() -> None:
    """A run waiting long for an approval: each stream lives its time, sends keep-alives, closes; none is
    counted as a failed one."""
    count = MAX_RECONNECTS + 3
    opened: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        opened.append(1)
        last = len(opened) == count
        body = _sse(1, "completed") + "event: end\ndata: {}\n\n" if last else ": keep-alive\n\n"
        return httpx.Response(200, text=body, headers={"Content-Type": "text/event-stream"})

    with _client(answer) as client:
        assert [i.seq for i in client.follow("r1") if isinstance(i, EventView)] == [1]
    assert len(opened) == count
