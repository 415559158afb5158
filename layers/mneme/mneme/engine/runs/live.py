"""Live runs inside the engine (issue 15.2): the model's text streamed to whoever follows the run, and each
step's committed events pushed to them.

Following is optional and lossless: the events are durable in the run store, a push is best effort, and a
client that lost its connection resumes with ``after=<seq>``. The model streams (Bedrock ``ConverseStream``)
only while someone listens; otherwise it is the plain ``Converse`` call, unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mneme import observability
from mneme.engine.deps import Deps
from mneme.engine.runs.session import RunSession
from mneme.models.run import Run, RunEvent
from mneme.ports.live import LiveFeed
from mneme.ports.models import ModelResponse

#: a delta is pushed when this many characters are buffered, or this long after the previous push
DELTA_CHARS = 64
DELTA_SECONDS = 0.1


class _Deltas:
    """Coalesces the model's text pieces into a few pushes (one per ~0.1 s or 64 characters)."""

    def __init__(self, feed: LiveFeed, run: Run, request_seq: int, monotonic: Callable[[], float]) -> None:
        self._feed, self._run, self._seq, self._now = feed, run, request_seq, monotonic
        self._buffer: list[str] = []
        self._size = 0
        self._last = monotonic()
        self.pushes = 0

    def add(self, text: str) -> None:
        self._buffer.append(text)
        self._size += len(text)
        if self._size >= DELTA_CHARS or self._now() - self._last >= DELTA_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self._buffer:
            self._feed.publish_delta(self._run, self._seq, "".join(self._buffer))
            self._buffer, self._size, self._last = [], 0, self._now()
            self.pushes += 1


def converse(
    session: RunSession, request: dict[str, Any], request_seq: int, *, timeout_seconds: float | None = None
) -> ModelResponse:
    """One model call (within ``timeout_seconds``, the run's time budget): streamed to the run's live
    followers when there are any and the model can stream."""
    deps, run = session.deps, session.run
    client = deps.models.client_for(session.config.agent.model)
    stream = getattr(client, "converse_stream", None)
    # a run not stored yet (the fast path before its first commit) has no follower: no read to ask
    if stream is None or not session.state.persisted or not _listening(deps.live, run):
        return client.converse(request, timeout_seconds=timeout_seconds)
    deltas = _Deltas(deps.live, run, request_seq, deps.monotonic)
    response: ModelResponse = stream(request, deltas.add, timeout_seconds=timeout_seconds)
    deltas.flush()
    return response


def _listening(feed: LiveFeed, run: Run) -> bool:
    try:
        return feed.listening(run)
    except Exception:  # following is best effort: the run goes on unstreamed
        observability.logger().exception("could not tell whether anyone follows the run", run_id=run.run_id)
        return False


def publish(deps: Deps, run: Run, events: Sequence[RunEvent]) -> None:
    """Push events just committed to the run's followers (never fails the step)."""
    if not events:
        return
    try:
        deps.live.publish(run, events)
    except Exception:
        observability.logger().exception("pushing run events failed", run_id=run.run_id)
