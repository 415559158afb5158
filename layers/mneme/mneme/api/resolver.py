"""Powertools' HTTP API resolver with its per-request state kept per request, not per process.

Powertools keeps the current event and the route context in class and instance attributes: two requests
resolved at once in one process (the threaded local server; a long-poll waiting while another request is
served) would see each other's event. This resolver keeps them in a ContextVar set for each ``resolve``
call — the pattern of Powertools' own ``HttpResolverLocal`` — so concurrent requests never share state.
On Lambda (one event at a time per container) it behaves exactly like ``APIGatewayHttpResolver``.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from re import Match
from typing import Any
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.utilities.data_classes.common import BaseProxyEvent

from mneme.records import Record, field


class _RequestState(Record, frozen=False):
    event: BaseProxyEvent | None = None
    lambda_context: Any = None
    context: dict[str, Any] = field(default_factory=dict)
    processed_stack_frames: list[str] = field(default_factory=list)


class ConcurrentHttpResolver(APIGatewayHttpResolver):
    def __init__(self, **options: Any) -> None:
        self._startup_state = _RequestState()
        self._request_state: ContextVar[_RequestState | None] = ContextVar("mneme_http_request", default=None)
        super().__init__(**options)

    @property
    def _state(self) -> _RequestState:
        return self._request_state.get() or self._startup_state

    @property  # type: ignore[override]
    def current_event(self) -> BaseProxyEvent:
        event = self._state.event
        assert event is not None, "current_event is only available while a request is resolved"
        return event

    @current_event.setter
    def current_event(self, value: BaseProxyEvent) -> None:
        self._state.event = value

    @property
    def lambda_context(self) -> Any:
        return self._state.lambda_context

    @lambda_context.setter
    def lambda_context(self, value: Any) -> None:
        self._state.lambda_context = value

    @property
    def context(self) -> dict[str, Any]:
        return self._state.context

    @context.setter
    def context(self, value: dict[str, Any]) -> None:
        self._state.context = value

    @property
    def processed_stack_frames(self) -> list[str]:
        return self._state.processed_stack_frames

    @processed_stack_frames.setter
    def processed_stack_frames(self, value: list[str]) -> None:
        self._state.processed_stack_frames = value

    def _convert_matches_into_route_keys(self, match: Match[str]) -> dict[str, str]:
        """The path's parameters percent-decoded (RFC 3986 §2.1): routes match the raw path (API Gateway's
        ``rawPath``), so ``/v1/chats/proj%3Achat.1`` names the chat ``proj:chat.1`` — as a client encoding each
        segment (JavaScript's ``encodeURIComponent``) sends it — and ``%2F`` never moves a request to another route."""
        return {name: unquote(value) for name, value in match.groupdict().items()}

    def resolve_request(self, event: Mapping[str, Any], context: Any, **request_context: Any) -> dict[str, Any]:
        """Resolve one HTTP event with its own state; ``request_context`` is what routes read from
        ``router.context`` (the deps)."""
        event = _without_empty_query_values(event)
        state = _RequestState(
            event=self._to_proxy_event(dict(event)),
            lambda_context=context,
            context={**self._startup_state.context, **request_context},
        )
        token = self._request_state.set(state)
        try:
            result: dict[str, Any] = super().resolve(event, context)
            return result
        finally:
            self._request_state.reset(token)


def _without_empty_query_values(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """A query parameter sent empty (``?status=``, as a form or SPEC §10's own URL templates leave it) is taken as
    absent on every route: ``?namespace=`` filtered on the empty namespace (every record hidden) while ``?action=``
    was a 400."""
    params = event.get("queryStringParameters")
    if not params or all(params.values()):
        return event
    return {**event, "queryStringParameters": {name: value for name, value in params.items() if value} or None}
