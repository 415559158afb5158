"""Server-sent events on ``GET /v1/runs/{id}/events`` with ``Accept: text/event-stream`` (local mode).

The local stand-in of the WebSocket API of AWS (issue 15.2): one HTTP response that stays open and carries

* ``event: run_event`` — each committed event, read through the Lambda's own events route (the store is the
  durable source), ``id:`` its position (``seq``, or the tree cursor with ``tree=true``);
* ``event: delta`` — the model's text while a step generates it (``{run_id, depth, request_seq, text}``);
* ``event: end`` — the followed run is final (then the stream closes);
* ``event: error`` — the route refused (no such run of the caller's): its error body and ``status``.

A client that reconnects sends ``Last-Event-ID`` (browsers' ``EventSource`` does) and resumes after it, so
a lost connection loses nothing. A quiet stream (a run waiting for an approval) sends a comment every
``KEEPALIVE_SECONDS``, so a client reading with a timeout tells a silent run from a dead connection. The
stream reads the store when a step commits (the in-process feed says so) and at least every second; it closes
after ``MAX_STREAM_SECONDS`` (the client reconnects).
"""

from __future__ import annotations

import json
import queue
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from mneme.engine.views.follow import decode_tree_cursor, encode_tree_cursor
from mneme_local.live_feed import InProcessFeed

EVENTS_PATH = re.compile(r"^/v1/runs/(?P<run_id>[^/]+)/events$")
MAX_STREAM_SECONDS = 600.0
POLL_SECONDS = 1.0
STATUS_SECONDS = 5.0  # how often a quiet stream checks whether its run ended
KEEPALIVE_SECONDS = 15.0  # a quiet stream sends a comment this often: a client tells a silent run from a dead link


def wants_stream(method: str, target: str, accept: str | None) -> str | None:
    """The run id when this request asks for an event stream of a run."""
    match = EVENTS_PATH.match(urlsplit(target).path)
    if method != "GET" or match is None or "text/event-stream" not in (accept or ""):
        return None
    return match.group("run_id")


class EventStream:
    """One SSE response; ``call`` answers a GET of the Lambda's API (a path with its query) as the Lambda
    does (``{statusCode, body}``)."""

    def __init__(
        self,
        run_id: str,
        target: str,
        last_event_id: str | None,
        call: Callable[[str], dict[str, Any]],
        write: Callable[[bytes], None],
        feed: InProcessFeed,
        *,
        max_seconds: float = MAX_STREAM_SECONDS,
        keepalive_seconds: float = KEEPALIVE_SECONDS,
    ) -> None:
        query = parse_qs(urlsplit(target).query)
        self.run_id = run_id
        self.tree = (query.get("tree") or ["false"])[0].lower() in ("1", "true")
        self.position = last_event_id or (query.get("cursor") or query.get("after") or [""])[0] or None
        self._call, self._write, self._feed = call, write, feed
        self._max_seconds = max_seconds
        self._keepalive_seconds = keepalive_seconds
        self._written = time.monotonic()

    def run(self) -> None:
        follower = self._feed.follow(self.run_id, tree=self.tree)
        deadline = time.monotonic() + self._max_seconds
        checked = float("-inf")
        try:
            while time.monotonic() < deadline:
                done, sent = self._read_events()
                if not sent and not done and time.monotonic() - checked >= STATUS_SECONDS:
                    done, checked = self._ended(), time.monotonic()
                    if done:  # its last events may have been committed since the read above: send them first
                        self._read_events()
                if done:
                    self._send("end", json.dumps({"run_id": self.run_id}))
                    return
                try:
                    item = follower.items.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    if time.monotonic() - self._written >= self._keepalive_seconds:
                        self._emit(b": keep-alive\n\n")
                    continue
                while True:  # deltas now; committed events are read from the store on the next turn
                    if item.get("type") == "delta":
                        self._send("delta", json.dumps(item))
                    try:
                        item = follower.items.get_nowait()
                    except queue.Empty:
                        break
        finally:
            self._feed.unfollow(follower)

    def _get(self, path: str) -> tuple[int, dict[str, Any]]:
        answer = self._call(path)
        return int(answer.get("statusCode") or 500), json.loads(answer.get("body") or "{}")

    def _ended(self) -> bool:
        status, body = self._get(f"/v1/runs/{self.run_id}")
        return status != 200 or body.get("status") in ("succeeded", "failed", "cancelled")

    def _read_events(self) -> tuple[bool, bool]:
        """Send the events after the position: (the followed run completed or the stream failed, any sent)."""
        params = {"limit": "1000", **({"tree": "true"} if self.tree else {})}
        if self.position:
            params["cursor" if self.tree else "after"] = self.position
        status, body = self._get(f"/v1/runs/{self.run_id}/events?{urlencode(params)}")
        if status != 200:  # the route's error, with its status (a client raises it as the API's answer)
            self._send("error", json.dumps({**body, "status": status}))
            return True, False
        events = body.get("events") or []
        positions = decode_tree_cursor(self.position) if self.tree else {}
        completed = False
        for event in events:
            if self.tree:  # each event's id resumes exactly after it
                positions[event["run_id"]] = int(event["seq"])
                self.position = encode_tree_cursor(positions)
            else:
                self.position = str(event["seq"])
            self._send("run_event", json.dumps(event), event_id=self.position)
            ours = event.get("run_id", self.run_id) == self.run_id
            completed = completed or (event.get("type") == "completed" and ours)
        return completed, bool(events)

    def _send(self, kind: str, data: str, *, event_id: str | None = None) -> None:
        lines = ([f"id: {event_id}"] if event_id else []) + [f"event: {kind}", f"data: {data}", "", ""]
        self._emit("\n".join(lines).encode("utf-8"))

    def _emit(self, data: bytes) -> None:
        self._write(data)
        self._written = time.monotonic()
