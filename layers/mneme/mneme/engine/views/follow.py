"""Follow a run as it happens (issue 15.1): ``GET /v1/runs/{id}/events?after=<seq>&wait=<s>[&tree=true]``.

A **long-poll**: the answer comes as soon as an event after the position exists, or empty after ``wait``
seconds (at most 20, well inside API Gateway's 29 s). While it waits it sleeps between reads of the store
with a growing pause (0.2 s, 0.3, 0.5, 0.75, then 1 s: 24 reads in a 20 s wait that finds nothing), never
spinning; a run already final answers at once.

With ``tree=true`` it follows the run and every run below it. Each event is tagged with its ``run_id`` and its
run's depth, ``run_depth`` (and ``depth``, but for the delegation events, whose ``depth`` is their child's);
events are ordered by time, then run and ``seq`` (each run's own events stay in ``seq`` order).
The **tree cursor** is opaque (base64url of ``{run_id: last seq}``); the answer always carries the one to
continue from. The subtree is read from the runs' ``children`` once per request (a new child is announced
by its parent's ``delegation_started`` event, which ends the wait); while waiting, each unfinished run is
read on every poll and a finished one until it has nothing more.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import json
from collections.abc import Iterator
from datetime import datetime
from itertools import islice
from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.runs.owner import own_run
from mneme.engine.views.pages import ENVELOPE_BYTES, start_after, take_page
from mneme.errors import InvalidInput
from mneme.models.run import Run, RunEvent
from mneme.models.user import Caller
from mneme.records import Record, field

MAX_WAIT_SECONDS = 20.0
#: the pauses between reads while waiting; the last one repeats
BACKOFF_SECONDS = (0.2, 0.3, 0.5, 0.75, 1.0)
MAX_TREE_CURSOR_CHARS = 4096


def follow_events(
    deps: Deps,
    caller: Caller,
    run_id: str,
    *,
    limit: int,
    cursor: str | None = None,
    after: int | None = None,
    wait: float = 0.0,
    tree: bool = False,
) -> dict[str, Any]:
    """``{events, cursor}``: the run's (or its subtree's) events after the position, waiting up to ``wait``
    seconds for the first one."""
    run = own_run(deps, caller, run_id)
    wait = max(0.0, min(float(wait), MAX_WAIT_SECONDS))
    if tree:
        if after is not None:
            raise InvalidInput("with tree=true the position is the cursor of the previous answer", field="after")
        return _TreeFollow(deps, run, decode_tree_cursor(cursor), limit).answer(wait)
    position = start_after(cursor, after)
    reader = _Poll(deps, wait)
    while True:
        entries = ((e.seq, e.to_api()) for e in deps.runs.iter_events(run_id, after=position))
        events, next_cursor = take_page(islice(entries, limit + 1), limit=limit, reserve=ENVELOPE_BYTES, what="event")
        if events or run.status.finished or not reader.pause():
            return {"events": events, "cursor": next_cursor}


class _Poll:
    """The pauses of one long-poll: False once ``wait`` is spent."""

    def __init__(self, deps: Deps, wait: float) -> None:
        self._deps = deps
        self._deadline = deps.monotonic() + wait
        self._step = 0

    def pause(self) -> bool:
        left = self._deadline - self._deps.monotonic()
        if left <= 0:
            return False
        self._deps.sleep(min(left, BACKOFF_SECONDS[min(self._step, len(BACKOFF_SECONDS) - 1)]))
        self._step += 1
        return True


# ------------------------------------------------------------------------------------------------- the tree
def encode_tree_cursor(positions: dict[str, int]) -> str:
    raw = json.dumps({k: v for k, v in sorted(positions.items()) if v > 0}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_tree_cursor(cursor: str | None) -> dict[str, int]:
    """``{run_id: last seq}`` of a tree cursor (empty for none); a malformed one is a 400."""
    if not cursor:
        return {}
    invalid = InvalidInput("cursor is not a tree cursor: pass the cursor of the previous answer", field="cursor")
    if len(cursor) > MAX_TREE_CURSOR_CHARS:
        raise invalid
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid from None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in value.items()
    ):
        raise invalid
    return dict(value)


class _Member(Record, frozen=False):
    run_id: str
    depth: int
    finished: bool
    read_done: bool = False  # finished, and its events after the position were read once


class _TreeFollow(Record, frozen=False):
    deps: Deps
    root: Run
    positions: dict[str, int]
    limit: int
    members: dict[str, _Member] = field(default_factory=dict)

    def answer(self, wait: float) -> dict[str, Any]:
        self._discover(self.root)
        poll = _Poll(self.deps, wait)
        while True:
            events = self._read()
            if events or all(m.finished for m in self.members.values()) or not poll.pause():
                return {"events": events, "cursor": encode_tree_cursor(self.positions)}

    def _discover(self, run: Run) -> None:
        """The subtree from ``run`` (its runs' ``children``), added to the members."""
        frontier = [run]
        while frontier:
            current = frontier.pop()
            if current.run_id in self.members or current.user_id != self.root.user_id:
                continue
            self.members[current.run_id] = _Member(current.run_id, current.depth, current.status.finished)
            frontier += [child for child in map(self.deps.runs.get_run, current.children) if child is not None]

    def _read(self) -> list[dict[str, Any]]:
        """One poll: the events after the position of every member not known to be read out, merged."""
        streams: list[Iterator[tuple[tuple[datetime, str, int], dict[str, Any]]]] = []
        for member in self.members.values():
            if member.read_done:
                continue
            after = self.positions.get(member.run_id) or None
            batch = list(islice(self.deps.runs.iter_events(member.run_id, after=after), self.limit + 1))
            member.finished = member.finished or any(e.type == "completed" for e in batch)
            member.read_done = member.finished and not batch
            streams.append(iter([(_order(e, member), _tagged(e, member)) for e in batch]))
        # heapq.merge keeps each run's own events in seq order, whatever their clocks said
        merged = enumerate(value for _key, value in heapq.merge(*streams, key=lambda pair: pair[0]))
        page, _ = take_page(islice(merged, self.limit + 1), limit=self.limit, reserve=ENVELOPE_BYTES, what="event")
        for event in page:
            self.positions[event["run_id"]] = max(self.positions.get(event["run_id"], 0), int(event["seq"]))
        return page


def _order(event: RunEvent, member: _Member) -> tuple[datetime, str, int]:
    return (event.at, member.run_id, event.seq)


def _tagged(event: RunEvent, member: _Member) -> dict[str, Any]:
    """The event with its run's id and depth (``run_depth``; ``depth`` too, unless the event has its own:
    a delegation's is its child's, SPEC §10)."""
    return {"depth": member.depth, **event.to_api(), "run_id": member.run_id, "run_depth": member.depth}
