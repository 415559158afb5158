"""The LiveFeed of local mode: the local server's server-sent-event clients follow runs in-process.

Every step runs in the server's process (the state machine's tasks call the runtime in-process), so a push
is a put on the follower's queue: a notice that events were committed (the SSE stream then reads them from
the store, the durable source), or a text delta of the model.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from typing import Any

from mneme.models.run import Run, RunEvent
from mneme.records import Record, field

#: a follower that stops reading loses deltas beyond this (events are never lost: they are in the store)
QUEUE_SIZE = 1000


class Follower(Record, frozen=False, eq=False):
    """One client following a run (``tree``: and every run below it)."""

    run_id: str
    tree: bool
    items: queue.Queue[dict[str, Any]] = field(default_factory=lambda: queue.Queue(QUEUE_SIZE))

    def follows(self, run: Run) -> bool:
        return run.run_id == self.run_id or (self.tree and self.run_id in run.lineage)

    def put(self, item: dict[str, Any]) -> None:
        try:
            self.items.put_nowait(item)
        except queue.Full:
            return


class InProcessFeed:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._followers: set[Follower] = set()

    def follow(self, run_id: str, *, tree: bool) -> Follower:
        follower = Follower(run_id, tree)
        with self._lock:
            self._followers.add(follower)
        return follower

    def unfollow(self, follower: Follower) -> None:
        with self._lock:
            self._followers.discard(follower)

    def _of(self, run: Run) -> list[Follower]:
        with self._lock:
            return [f for f in self._followers if f.follows(run)]

    def listening(self, run: Run) -> bool:
        return bool(self._of(run))

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None:
        for follower in self._of(run):
            follower.put({"type": "events", "run_id": run.run_id, "last_seq": events[-1].seq if events else 0})

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None:
        frame = {"type": "delta", "run_id": run.run_id, "depth": run.depth, "request_seq": request_seq, "text": text}
        for follower in self._of(run):
            follower.put(frame)
