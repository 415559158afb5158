"""Following a run to its end, over whichever way the server answers: shared by the sync and the async client.

The client asks ``GET /v1/runs/{id}/events`` for server-sent events (``Accept: text/event-stream``). The local
server streams them; a deployed stack's HTTP API cannot (API Gateway streams responses only for REST APIs) and
answers the route's JSON page instead. The follow then long-polls the same route (``after=<seq>`` or the tree
``cursor``, ``wait``) until the run is final — it never gives up on a run that merely has a JSON-answering
server, and never yields an event twice or skips one. A stream that closes before the run ends is resumed
after its last event (``Last-Event-ID``), and so is one whose connection fails or stays silent past
``STREAM_READ_SECONDS`` (the server sends a keep-alive comment every 15 s); only streams that close again and again
having sent nothing at all are given up (a run waiting hours for an approval outlives any number of stream
lifetimes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from mneme_client import models
from mneme_client.calls import TERMINAL, seg
from mneme_client.errors import ApiError, ClientError
from mneme_client.sse import FollowItem, SSEDecoder, item_of

MAX_RECONNECTS = 5  # streams closed in a row having sent nothing before the follow is given up
STREAM_READ_SECONDS = 45.0  # a stream silent this long is a dead connection (the server sends a comment every 15 s)
RECONNECT_BACKOFF_SECONDS = 0.2
POLL_WAIT_SECONDS = 20  # the route's own maximum (API Gateway's HTTP API ends a request at 29 s)


def is_page(response: httpx.Response) -> bool:
    """Whether the answer is the route's JSON (an error, or a page: the server does not stream), not a stream."""
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    return response.status_code >= 400 or kind == "application/json" or kind.endswith("+json")


@dataclass
class Follow:
    """The state of one follow: where it is (the stream's last event id, or the long-poll's position), whether
    it polls, and whether the run has ended."""

    run_id: str
    tree: bool = False
    decoder: SSEDecoder = field(default_factory=SSEDecoder)
    polling: bool = False
    position: str | None = None  # polling: the last seq seen (a run), or the tree cursor (tree=True)
    done: bool = False
    closed_without_events: int = 0
    _heard: bool = False  # anything received on this stream: an event, a delta, a keep-alive

    @property
    def path(self) -> str:
        return f"/v1/runs/{seg(self.run_id)}/events"

    def stream_request(self) -> tuple[dict[str, str], dict[str, str]]:
        """The params and headers of the next stream request (resuming after the last event id seen)."""
        self.decoder.reset()  # an event cut off by the closed connection is sent again whole: drop its part
        self._heard = False
        position = self.decoder.last_event_id
        headers = {"Accept": "text/event-stream"} | ({"Last-Event-ID": position} if position else {})
        return ({"tree": "true"} if self.tree else {}), headers

    def poll_query(self, *, wait: bool = True) -> dict[str, Any]:
        """The keyword arguments of :func:`mneme_client.calls.run_events` for the next long-poll (``wait=False``:
        the events committed after the position, at once)."""
        where: dict[str, Any] = {}
        if self.position is not None:
            where = {"cursor": self.position} if self.tree else {"after": int(self.position)}
        return where | {"wait": POLL_WAIT_SECONDS if wait else None, "tree": self.tree}

    def line(self, line: str) -> FollowItem | None:
        """The item a line of the stream completes, if any (``done`` after ``end``)."""
        self._heard = True
        sent = self.decoder.feed(line)
        if sent is None:
            return None
        if sent.event == "end":
            self.done = True
            return None
        if sent.event == "error":
            raise _stream_error(sent.data)
        return item_of(sent)

    @staticmethod
    def stream_timeout(timeout: httpx.Timeout) -> httpx.Timeout:
        """The client's timeouts, but a read waits at least ``STREAM_READ_SECONDS`` (no limit if it has none)."""
        read = None if timeout.read is None else max(timeout.read, STREAM_READ_SECONDS)
        return httpx.Timeout(timeout.connect, read=read, write=timeout.write, pool=timeout.pool)

    def stream_closed(self, error: httpx.TransportError | None = None) -> float:
        """The stream closed (or its connection failed, or went silent) before ``end``: the seconds to wait before
        resuming it; raised when streams keep closing having sent nothing (no server, or one that cannot follow)."""
        self.closed_without_events = 0 if self._heard else self.closed_without_events + 1
        if self.closed_without_events >= MAX_RECONNECTS:
            reason = f" (last: {error!r})" if error is not None else ""
            raise ClientError(
                f"the event stream of {self.run_id} closed {MAX_RECONNECTS} times in a row without an event "
                f"before the run ended{reason}"
            )
        return RECONNECT_BACKOFF_SECONDS * 2 ** max(self.closed_without_events - 1, 0) if not self._heard else 0.0

    def page(self, page: models.EventsView) -> list[models.EventView]:
        """The events of a JSON page of the route (a server that does not stream): from now on, long-poll."""
        self.polling = True
        for event in page.events:
            if self._ends(event):
                self.done = True
        if self.tree and page.cursor:
            self.position = page.cursor
        elif not self.tree and page.events:
            self.position = str(page.events[-1].seq)
        return page.events

    def _ends(self, event: models.EventView) -> bool:
        run_id = (event.model_extra or {}).get("run_id", self.run_id)
        return event.type == "completed" and run_id == self.run_id

    def quiet(self, status: str) -> bool:
        """After a long-poll that found nothing: whether the run (of ``status``) is final, so that one last read
        (``poll_query(wait=False)``) ends the follow — a run that ended without a ``completed`` event of its own
        in the pages read is not waited for forever."""
        return status in TERMINAL


def _stream_error(data: str) -> ClientError:
    """The error a stream's ``error`` event sends: the route's refusal (``{error, message, status}``) as the
    :class:`ApiError` a request would have raised, else the data as said."""
    try:
        body = json.loads(data)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("status"), int) and isinstance(body.get("error"), str):
        return ApiError.from_answer(body["status"], body, data)
    return ClientError(f"the event stream failed: {data}")
