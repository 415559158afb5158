"""Per-request access to the dependencies and the caller, for the route modules."""

from __future__ import annotations

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
