"""The local server's event stream (``mneme_local.sse``) never ends before it sent its run's last events."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from mneme_local.live_feed import InProcessFeed
from mneme_local.sse import EventStream

RUN = "run-1"
WAITING: dict[str, Any] = {"seq": 1, "type": "approval_requested", "run_id": RUN}
COMPLETED: dict[str, Any] = {"seq": 2, "type": "completed", "run_id": RUN}


class _Api:
    """The Lambda's routes as the stream calls them: the run's final events are committed just after the stream
    read its events, before it asks for the run's status (the step commits its events and its status at once)."""

    def __init__(self) -> None:
        self.committed = [WAITING]
        self.reads = 0

    def call(self, target: str) -> dict[str, Any]:
        path = urlsplit(target).path
        if path.endswith("/events"):
            self.reads += 1
            after = int(dict(p.split("=") for p in urlsplit(target).query.split("&")).get("after", "0"))
            answer = {"events": [e for e in self.committed if e["seq"] > after]}
            if self.reads == 2:  # the second read found nothing new; the step commits now
                self.committed = [WAITING, COMPLETED]
            return {"statusCode": 200, "body": json.dumps(answer)}
        status = "succeeded" if len(self.committed) == 2 else "waiting_approval"
        return {"statusCode": 200, "body": json.dumps({"run_id": RUN, "status": status})}


def test_a_run_that_ends_between_two_reads_still_has_its_last_events_sent_before_the_end() -> None:
    api, written = _Api(), list[bytes]()
    stream = EventStream(RUN, f"/v1/runs/{RUN}/events", None, api.call, written.append, InProcessFeed())
    stream.run()
    frames = [chunk.decode() for chunk in written]
    kinds = [next(line[7:] for line in f.splitlines() if line.startswith("event: ")) for f in frames]
    assert kinds == ["run_event", "run_event", "end"]
    assert '"completed"' in frames[1]


def test_a_quiet_stream_sends_keep_alive_comments_so_a_client_can_tell_it_from_a_dead_connection() -> None:
    waiting = {"statusCode": 200, "body": json.dumps({"run_id": RUN, "status": "waiting_approval"})}

    def call(target: str) -> dict[str, Any]:
        if urlsplit(target).path.endswith("/events"):
            return {"statusCode": 200, "body": json.dumps({"events": []})}
        return waiting

    written = list[bytes]()
    stream = EventStream(
        RUN, f"/v1/runs/{RUN}/events", None, call, written.append, InProcessFeed(), max_seconds=2.5, keepalive_seconds=1
    )
    stream.run()
    assert written and all(chunk == b": keep-alive\n\n" for chunk in written)
