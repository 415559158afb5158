"""A scripted fake of the ModelClient port: replays responses in order and records every request."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from mneme.models.run import Usage
from mneme.ports.models import ModelResponse

ScriptItem = ModelResponse | Exception | str | Callable[[dict[str, Any]], ModelResponse]


def text_response(text: str, *, usage: Usage | None = None, stop_reason: str = "end_turn") -> ModelResponse:
    """A plain text reply."""
    return ModelResponse(content=[{"text": text}], stop_reason=stop_reason, usage=usage or Usage())


def tool_use_response(
    *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str],
    text: str | None = None,
    usage: Usage | None = None,
) -> ModelResponse:
    """A ``tool_use`` turn; each call is ``(name, input)`` or ``(name, input, call_id)``."""
    content: list[dict[str, Any]] = [{"text": text}] if text else []
    for index, call in enumerate(calls, start=1):
        call_id = call[2] if len(call) == 3 else f"call-{index}-{call[0]}"
        content.append({"toolUse": {"toolUseId": call_id, "name": call[0], "input": call[1]}})
    return ModelResponse(content=content, stop_reason="tool_use", usage=usage or Usage())


class ScriptedModel:
    """Replays the script: a ModelResponse is returned, an exception raised, a str is a text reply and a
    callable is called with the request. When the script is spent, ``default`` answers (or an
    AssertionError names the unexpected call)."""

    def __init__(self, script: Iterable[ScriptItem] = (), *, default: ScriptItem | None = None) -> None:
        self.script: list[ScriptItem] = list(script)
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self.timeouts: list[float | None] = []  # the timeout_seconds of each call

    def add(self, *items: ScriptItem) -> ScriptedModel:
        self.script.extend(items)
        return self

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def last_request(self) -> dict[str, Any]:
        assert self.requests, "the model was never called"
        return self.requests[-1]

    @property
    def remaining(self) -> int:
        return len(self.script)

    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        self.requests.append(copy.deepcopy(request))
        self.timeouts.append(timeout_seconds)
        if self.script:
            item = self.script.pop(0)
        elif self.default is not None:
            item = self.default
        else:
            raise AssertionError(f"ScriptedModel: unexpected call #{len(self.requests)} (script is empty)")
        if isinstance(item, Exception):
            raise item
        if isinstance(item, str):
            return text_response(item)
        if isinstance(item, ModelResponse):
            return item
        return item(request)
