"""Per-request access to the dependencies and the caller, for the route modules."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from mneme.engine.deps import Deps
from mneme.errors import Unauthorized
from mneme.models.user import Caller


def new_router() -> Router:
    """A route group (Powertools' Router is untyped)."""
    router: Router = Router()  # type: ignore[no-untyped-call]
    return router


def deps_of(router: Router) -> Deps:
    deps: Deps = router.context["deps"]
    return deps


def caller_of(router: Router) -> Caller:
    """The caller the entry authenticated from the JWT claims (``mneme.api.entry``)."""
    caller = router.context.get("caller")
    if not isinstance(caller, Caller):
        raise Unauthorized("a verified token with a 'sub' claim is required")
    return caller
