"""The local HTTP server of the embedded mode: ``make run`` (``python -m mneme_local.server``).

It plays API Gateway (HTTP API with a JWT authorizer) in front of the run function: it verifies ``Authorization:
Bearer <JWT>`` against the local development key (:mod:`mneme_local.auth`), builds the same HTTP API **v2.0** event
the Lambda receives (:mod:`mneme_local.gateway_event`; claims in ``requestContext.authorizer.jwt.claims``, rendered
as strings the way API Gateway does), hands it to :meth:`Runtime.handle` and writes the answer. ``/v1/health`` and
``/v1/openapi.json`` need no token, nor do the web console's static files at ``/`` and ``/console/…``
(:mod:`mneme_local.console_assets`; the console's API calls carry the token), nor the API's documentation page at
``/docs`` (:mod:`mneme_local.api_docs`, Swagger UI from a PyPI package). ``GET /v1/runs/{id}/events`` with
``Accept: text/event-stream`` streams the run live as server-sent events (:mod:`mneme_local.sse`, the local
stand-in of the WebSocket API); requests are served concurrently, a long-poll never holds up another request.
``POST /_local/events`` is the local stand-in of the event bus (:mod:`mneme_local.local_events`, ``make event``),
and ``GET /_local/exports/<key>`` the stand-in of an export's presigned S3 URL (:mod:`mneme_local.file_exports`;
the owner's token only); neither is a route of the Lambda. It listens on ``127.0.0.1:$MNEME_PORT`` (8000) only.
Like Lambda, it refuses a response document over 6 MB (API Gateway then answers 500). SIGINT / SIGTERM stop it
gracefully: no new requests, the memory queue drained, the stores closed.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from mneme_local import api_docs, console_assets
from mneme_local.auth import AuthError, authenticate
from mneme_local.file_exports import LOCAL_EXPORTS_PREFIX, serve_export
from mneme_local.gateway_event import HOST, build_event
from mneme_local.http_io import (
    REQUEST_READ_SECONDS,
    TOO_LARGE_BODY,
    HandlerIO,
    error_result,
    lambda_response_bytes,
    unauthorized,
)
from mneme_local.live_feed import InProcessFeed
from mneme_local.local_events import LOCAL_EVENTS_PATH, deliver
from mneme_local.sse import EventStream, wants_stream
from mneme_local.token import signing_key

log = logging.getLogger("local_mode.server")  # see compose.log

DEFAULT_PORT = 8000
PUBLIC_PATHS = frozenset({"/v1/health", "/v1/openapi.json"})
SWEEP_SECONDS = 60.0  # how often the local sweeper looks for runs nothing runs any more
GONE = (BrokenPipeError, ConnectionResetError, TimeoutError)  # writing to a client that left (or reads no more)


class LocalHandler(HandlerIO, BaseHTTPRequestHandler):
    server: LocalHTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "mneme-local"
    # Keep-alive clients would otherwise stall ~40 ms per request: the status line and headers went out in
    # one small write, the body in a second, and Nagle's algorithm held the second until the client's
    # delayed ACK of the first. Responses are buffered and leave in one write (flushed once per request
    # by BaseHTTPRequestHandler.handle_one_request), and TCP_NODELAY sends them at once.
    disable_nagle_algorithm = True
    wbufsize = 64 * 1024

    def handle(self) -> None:
        with contextlib.suppress(*GONE):  # a client that left (a stream read with `| head`) is no server error
            super().handle()

    def finish(self) -> None:
        with contextlib.suppress(*GONE):  # the buffered rest cannot reach a client that left
            super().finish()

    def handle_expect_100(self) -> bool:
        answered = super().handle_expect_100()
        self.wfile.flush()  # the interim 100 Continue must leave now, not with the final response
        return answered

    def do_GET(self) -> None:
        self._serve()

    def do_HEAD(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_OPTIONS(self) -> None:
        self._serve()

    def _serve(self) -> None:
        started = time.monotonic()
        run_id = wants_stream(self.command, self.path, self.headers.get("Accept"))
        if run_id is not None and self.server.feed is not None:
            self._stream(run_id, started)
            return
        try:
            result = self._result()
        except Exception as exc:  # the runtime crashed: API Gateway would answer 500 too
            log.exception("the run function failed on %s %s", self.command, self.path)
            result = error_result(500, "internal_error", f"the run function failed: {type(exc).__name__}")
        local = isinstance(result, dict) and result.pop("local", False)  # served by this server, not by Lambda
        if not local and lambda_response_bytes(result) > LAMBDA_RESPONSE_BYTES:  # Lambda refuses it: API Gateway 500
            log.error("the response to %s %s exceeds Lambda's 6 MB response limit", self.command, self.path)
            result = {"statusCode": 500, "headers": {"Content-Type": "application/json"}, "body": TOO_LARGE_BODY}
        status = self._write(result)
        elapsed = (time.monotonic() - started) * 1000
        if not self.server.quiet:
            sys.stderr.write(f"{self.command} {self.path} {status} {elapsed:.0f}ms\n")

    def _result(self) -> Any:
        body, refusal = self._body_or_refusal()
        if refusal is not None:  # unreadable, too large, or not all sent in time: the connection is closed
            return refusal
        path = urlsplit(self.path).path
        local = self._local_only(path, body)
        if local is not None:
            return local
        claims: dict[str, Any] | None = None
        if path not in PUBLIC_PATHS:
            try:
                claims = authenticate(self.server.key, self.headers.get("Authorization"))
            except AuthError as exc:
                return unauthorized(exc, self.headers.get("Authorization"))
        event = build_event(
            self.command,
            self.path,
            list(self.headers.items()),
            body,
            claims=claims,
            source_ip=self.client_address[0],
        )
        return self.server.handle_event(event)

    def _stream(self, run_id: str, started: float) -> None:
        """``Accept: text/event-stream`` on a run's events: server-sent events (mneme_local.sse)."""
        self._reader.settle()  # a GET's stream reads nothing more: no request deadline on its writes
        try:
            claims = authenticate(self.server.key, self.headers.get("Authorization"))
        except AuthError as exc:
            self._write(unauthorized(exc, self.headers.get("Authorization")))
            return
        headers = [(k, v) for k, v in self.headers.items() if k.lower() != "accept"]

        def call(target: str) -> dict[str, Any]:
            event = build_event("GET", target, headers, b"", claims=claims, source_ip=self.client_address[0])
            result: dict[str, Any] = self.server.handle_event(event)
            return result

        def write(data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()

        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        assert self.server.feed is not None
        stream = EventStream(run_id, self.path, self.headers.get("Last-Event-ID"), call, write, self.server.feed)
        with contextlib.suppress(*GONE):  # gone: it resumes with Last-Event-ID
            stream.run()
        if not self.server.quiet:
            sys.stderr.write(f"GET {self.path} (event stream) {(time.monotonic() - started) * 1000:.0f}ms\n")

    def _local_only(self, path: str, body: bytes) -> Any:
        """What the local server answers itself (no route of the Lambda's API), or None."""
        if path == LOCAL_EVENTS_PATH:  # the local stand-in of the event bus
            return deliver(
                self.server.handle_event,
                self.server.key,
                method=self.command,
                authorization=self.headers.get("Authorization"),
                body=body,
                region=self.server.region,
            )
        if console_assets.handles(path):
            return console_assets.respond(self.command, path, self.headers.get("If-None-Match"))
        if api_docs.handles(path):
            return api_docs.respond(self.command, path, self.headers.get("If-None-Match"))
        if path.startswith(LOCAL_EXPORTS_PREFIX) and self.server.exports is not None:
            return self._export(path)
        return None

    def _export(self, path: str) -> Any:
        """An export archive, to its owner only (the stand-in of the presigned S3 URL)."""
        if self.command != "GET":
            return error_result(405, "method_not_allowed", "exports are downloaded with GET")
        try:
            claims = authenticate(self.server.key, self.headers.get("Authorization"))
        except AuthError as exc:
            return unauthorized(exc, self.headers.get("Authorization"))
        status, headers, payload = serve_export(self.server.exports, path, str(claims.get("sub", "")))
        body = base64.b64encode(payload).decode()
        return {"statusCode": status, "headers": headers, "body": body, "isBase64Encoded": True, "local": True}

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request is written by _serve


class LocalHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the listen backlog: bursts of clients wait instead of being reset
    read_timeout = REQUEST_READ_SECONDS  # a request's line, headers and body must all arrive within it (http_io)

    def __init__(
        self,
        port: int,
        key: bytes,
        handle_event: Any,
        *,
        quiet: bool = False,
        region: str = "us-east-1",
        feed: InProcessFeed | None = None,
        exports: Any = None,
    ) -> None:
        self.key = key
        self.feed = feed
        self.handle_event = handle_event
        self.exports = exports
        self.quiet = quiet
        self.region = region
        super().__init__((HOST, port), LocalHandler)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("faiss").setLevel(logging.WARNING)  # which CPU build it tried: six lines, one a ModuleNotFound
    from mneme_local.compose import build_local
    from mneme_local.recovery import recover, report_recovery
    from mneme_local.stack import LocalSetupError

    try:
        port = int(os.environ.get("MNEME_PORT") or DEFAULT_PORT)
    except ValueError:
        sys.stderr.write("MNEME_PORT must be a port number\n")
        return 2
    try:
        stack = build_local()
    except LocalSetupError as exc:
        sys.stderr.write(f"mneme local: {exc}\n")
        return 2
    key = signing_key(stack.options.data_dir)
    try:
        httpd = LocalHTTPServer(
            port,
            key,
            stack.runtime.handle,
            quiet=os.environ.get("MNEME_QUIET") == "1",
            region=stack.deps.settings.region,
            feed=stack.deps.live if isinstance(stack.deps.live, InProcessFeed) else None,
            exports=stack.deps.exports,
        )
    except OSError as exc:
        stack.close()
        sys.stderr.write(f"mneme local: cannot listen on {HOST}:{port}: {exc} (set MNEME_PORT)\n")
        return 2

    def stop(signum: int, frame: Any) -> None:
        log.info("stopping (signal %d)…", signum)
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        recover(stack)
        report_recovery(stack)
        stack.sweep()  # beside recovery: what no execution runs any more is failed as interrupted
        stack.start_sweeper(float(os.environ.get("MNEME_SWEEP_SECONDS") or SWEEP_SECONDS))
        from mneme_local.banner import stack_banner

        print(stack_banner(stack, host=HOST, port=port), flush=True)
        httpd.serve_forever()
    finally:
        httpd.server_close()
        stack.close()
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
