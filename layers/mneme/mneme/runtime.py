"""The run function's dispatcher: every entry point (HTTP, EventBridge, the state machine's steps, the redrive,
the sweeper).

The Lambda handler builds one :class:`Runtime` per container (settings validated at cold start, clients
created once) and hands it each event. Errors raised to the state machine keep their class names, which
are the ``ErrorEquals`` names of the ASL's Retry / Catch.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from mneme import observability
from mneme.engine.deps import Deps

RUN_REQUESTED = "mneme.RunRequested"


class Runtime:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self._app: Any = None
        # Powertools keeps the current HTTP event in a class attribute: HTTP events are served one at a time
        # (Lambda does so anyway; the threaded local server must too). Steps and SQS batches need no lock.
        self._http = threading.Lock()

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Runtime:
        from mneme.composition import build_aws
        from mneme.settings import Settings

        return cls(build_aws(Settings.from_env(environ)))

    @property
    def app(self) -> Any:
        if self._app is None:
            from mneme.api.app import create_app

            self._app = create_app()
        return self._app

    def handle(self, event: Mapping[str, Any], context: Any = None) -> Any:
        observability.start_invocation()
        try:
            return self._dispatch(event, context)
        finally:
            observability.end_invocation()

    def _dispatch(self, event: Mapping[str, Any], context: Any) -> Any:
        if "requestContext" in event and "http" in (event.get("requestContext") or {}):
            from mneme.api.entry import handle_http

            with self._http:
                return handle_http(self.app, self.deps, dict(event), context)
        if event.get("detail-type") == RUN_REQUESTED:
            return self.run_requested(event.get("detail") or {})
        action = event.get("action")
        if action in ("step", "await_approval", "fail"):
            return self.state_machine(str(action), event)
        if action == "sweep":
            from mneme.engine.sweeper import sweep

            return sweep(self.deps).to_dict()
        if action == "redrive" or event.get("detail-type") == "mneme.Redrive":
            from mneme.engine.redrive import redrive_outbox

            return redrive_outbox(self.deps).to_dict()
        from mneme.errors import InvalidInput

        raise InvalidInput("unknown event: not an HTTP request, a mneme.RunRequested event, a step, a redrive, a sweep")

    def run_requested(self, detail: Mapping[str, Any]) -> dict[str, Any]:
        """EventBridge ``mneme.RunRequested``: a run exactly like the API's, with no person to ask."""
        from pydantic import ValidationError

        from mneme.engine.service import start_run
        from mneme.errors import InvalidInput, MnemeError
        from mneme.json_depth import too_deep_message, value_depth_exceeds
        from mneme.models.requests import RunRequest
        from mneme.models.user import Caller

        try:
            if value_depth_exceeds(detail):  # before pydantic (and any log line) walks it recursively
                raise InvalidInput(too_deep_message("the event detail"), field="detail")
            caller = Caller(user_id=str(detail.get("user_id") or ""))
            if not caller.user_id.strip():
                raise InvalidInput("the event names no user_id", field="user_id")
            request = RunRequest.model_validate(dict(detail))
            result = start_run(self.deps, caller, request, event_triggered=True)
        except (ValidationError, InvalidInput) as exc:  # a bad event is not retried: it would fail again
            observability.logger().warning("rejected RunRequested event", error=str(exc))
            return {"status": "rejected", "error": str(exc)}
        except MnemeError as exc:
            if exc.status in (404, 413):
                observability.logger().warning("rejected RunRequested event", error=exc.message)
                return {"status": "rejected", "error": exc.message}
            raise
        observability.bind(run_id=result.run.run_id, user_id=caller.user_id)
        return {"run_id": result.run.run_id, "status": result.run.status.value}

    def state_machine(self, action: str, event: Mapping[str, Any]) -> dict[str, Any]:
        from mneme.engine import approvals, service

        run_id = str(event.get("run_id") or "")
        observability.bind(run_id=run_id, depth=event.get("depth"))
        if action == "await_approval":
            return approvals.store_task_token(self.deps, run_id, str(event.get("task_token") or ""))
        if action == "fail":
            return approvals.mark_failed(self.deps, run_id, event.get("error"))
        result = service.step(
            self.deps,
            run_id,
            delegation_refused=bool(event.get("delegation_refused")),
            entered_at=_parse_time(event.get("entered_at")),
            execution_id=str(event.get("execution_id") or "") or None,
        )
        observability.bind(root_run_id=result.run.root_run_id, user_id=result.run.user_id)
        return result.to_state()


def _parse_time(value: Any) -> Any:
    """The state machine's ``$$.State.EnteredTime`` (ISO-8601), or None."""
    from datetime import datetime

    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
