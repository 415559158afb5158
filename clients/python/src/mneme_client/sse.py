"""Server-sent events: a line decoder (the WHATWG rules mneme's stream uses) and the items a follow yields.

``GET /v1/runs/{id}/events`` with ``Accept: text/event-stream`` sends ``run_event`` (a committed event,
``id:`` its position), ``delta`` (model text while it is generated) and ``end`` (the run is final).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mneme_client.models import EventView


@dataclass(frozen=True)
class ServerSentEvent:
    event: str
    data: str
    id: str | None = None


@dataclass
class SSEDecoder:
    """Feed it lines (without their line break); it returns an event at each blank line that ends one."""

    _event: str = ""
    _data: list[str] = field(default_factory=list)
    _id: str | None = None
    last_event_id: str | None = None

    def reset(self) -> None:
        """Forget an event begun but not ended (its connection closed): a resumed stream sends it again whole."""
        self._event, self._data, self._id = "", [], None

    def feed(self, line: str) -> ServerSentEvent | None:
        if not line:
            if self._id is not None:  # an event's id counts once the event is whole (a cut-off one is sent again)
                self.last_event_id = self._id
            if not self._data and not self._event:
                self._id = None
                return None
            sent = ServerSentEvent(self._event or "message", "\n".join(self._data), self._id)
            self._event, self._data, self._id = "", [], None
            return sent
        if line.startswith(":"):
            return None  # a comment (keep-alive)
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        return None


@dataclass(frozen=True)
class TextDelta:
    """Model text of a step while it is generated (not stored: the committed events are)."""

    run_id: str
    text: str
    depth: int = 0


FollowItem = EventView | TextDelta


def item_of(sent: ServerSentEvent) -> FollowItem | None:
    """The run event or text delta ``sent`` carries; None for ``end`` and unknown kinds."""
    if sent.event == "run_event":
        return EventView.model_validate_json(sent.data)
    if sent.event == "delta":
        body: dict[str, Any] = json.loads(sent.data)
        return TextDelta(str(body.get("run_id", "")), str(body.get("text", "")), int(body.get("depth") or 0))
    return None
