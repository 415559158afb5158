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

from mneme import observability, telemetry
from mneme.engine.deps import Deps

RUN_REQUESTED = "mneme.RunRequested"
SOCKET_EVENTS = frozenset({"CONNECT", "MESSAGE", "DISCONNECT"})


class Runtime:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self._app: Any = None
        # HTTP events may be resolved concurrently (the threaded local server; a long-poll waiting beside
        # other requests): the resolver keeps each request's state apart (api/resolver.py). The lock only
        # guards building the app once.
        self._app_lock = threading.Lock()

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Runtime:
        from mneme.composition import build_aws
        from mneme.settings import Settings

        return cls(build_aws(Settings.from_env(environ)))

    @property
    def app(self) -> Any:
        with self._app_lock:
            if self._app is None:
                from mneme.api.app import create_app

                self._app = create_app(lazy=True)
        return self._app

    def handle(self, event: Mapping[str, Any], context: Any = None) -> Any:
        observability.start_invocation()
        try:
            return self._dispatch(event, context)
        finally:
            observability.end_invocation()
            if telemetry.enabled():
                telemetry.flush()

    def _dispatch(self, event: Mapping[str, Any], context: Any) -> Any:
        if "requestContext" in event and "http" in (event.get("requestContext") or {}):
            from mneme.api.entry import handle_http

            method = str(((event.get("requestContext") or {}).get("http") or {}).get("method") or "")
            self.app.include_for(str(event.get("rawPath") or ""), method)
            return handle_http(self.app, self.deps, dict(event), context)
        if (event.get("requestContext") or {}).get("eventType") in SOCKET_EVENTS:  # the WebSocket API
            from mneme.api.socket_entry import handle_socket

            return handle_socket(self.deps, event)
        if event.get("detail-type") == RUN_REQUESTED:
            return self.run_requested(event)
        action = event.get("action")
        if action in ("step", "await_approval", "fail"):
            return self.state_machine(str(action), event)
        if action == "sweep":  # runs nothing runs any more are failed; privacy jobs nothing runs are resumed
            from mneme.engine.privacy.resume import resume_open_jobs
            from mneme.engine.runs.sweeper import sweep

            return {**sweep(self.deps).to_dict(), "privacy_jobs_resumed": resume_open_jobs(self.deps)}
        if action == "redrive" or event.get("detail-type") == "mneme.Redrive":
            from mneme.engine.memory_io.redrive import redrive_outbox

            return redrive_outbox(self.deps).to_dict()
        from mneme.errors import InvalidInput

        raise InvalidInput("unknown event: not an HTTP request, a mneme.RunRequested event, a step, a redrive, a sweep")

    def run_requested(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """EventBridge ``mneme.RunRequested``: a run exactly like the API's, once per event (see engine.events).
        A rejected event raises EventRejected: Lambda retries it once, then sends it to the DLQ."""
        from mneme.engine.runs.requested_events import start_requested_run
        from mneme.errors import EventRejected

        try:
            answer = start_requested_run(self.deps, event)
        except EventRejected as exc:
            observability.logger().warning("rejected RunRequested event", event_id=event.get("id"), error=exc.message)
            raise
        observability.bind(run_id=answer["run_id"], event_id=answer["event_id"])
        return answer

    def state_machine(self, action: str, event: Mapping[str, Any]) -> dict[str, Any]:
        from mneme.engine.runs import approvals, service

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
            children_ended=event.get("after") == "delegate",
            entered_at=_parse_time(event.get("entered_at")),
            execution_arn=str(event.get("execution_id") or "") or None,
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
