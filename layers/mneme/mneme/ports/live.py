"""The live ports (issue 15.2): the run feed followers read, and the WebSocket hub.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mneme.models import (
    Run,
    RunEvent,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


class LiveFeed(Protocol):
    """Pushes a run's committed events and its model's text deltas to whoever follows the run live (the
    WebSocket API's subscribers on AWS, server-sent events locally). Best effort: it never raises, and a
    lost push loses nothing (the events are durable; a client resumes with ``after=<seq>``)."""

    def listening(self, run: Run) -> bool:
        """Whether anyone follows this run (or a tree it is part of) right now."""
        ...

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None: ...

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None: ...


class NoLiveFeed:
    """Nobody follows runs live (no WebSocket API configured)."""

    def listening(self, run: Run) -> bool:
        return False

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None:
        return None

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None:
        return None


class SocketHub(Protocol):
    """The WebSocket API's connections and subscriptions (AWS only), and pushes to one connection."""

    def connect(self, connection_id: str, user_id: str) -> None: ...
    def user_of(self, connection_id: str) -> str | None: ...
    def disconnect(self, connection_id: str) -> None: ...
    def subscribe(self, connection_id: str, user_id: str, run: Run, *, tree: bool) -> None: ...
    def unsubscribe(self, connection_id: str, run_id: str) -> None: ...
    def send(self, connection_id: str, frame: dict[str, Any]) -> bool:
        """Push one frame; False when the connection is gone (it is forgotten)."""
        ...
