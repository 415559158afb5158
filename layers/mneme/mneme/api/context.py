"""Per-request access to the dependencies and the caller, for the route modules."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router

from mneme.api.auth import caller_from_event
from mneme.engine.deps import Deps
from mneme.models.user import Caller


def new_router() -> Router:
    """A route group (Powertools' Router is untyped)."""
    router: Router = Router()  # type: ignore[no-untyped-call]
    return router


def deps_of(router: Router) -> Deps:
    deps: Deps = router.context["deps"]
    return deps


def caller_of(router: Router) -> Caller:
    return caller_from_event(router.current_event.raw_event)


def query_param(router: Router, name: str) -> str | None:
    params: dict[str, Any] = router.current_event.query_string_parameters or {}
    value = params.get(name)
    return value if isinstance(value, str) and value != "" else None
