"""mneme's MCP server at ``/mcp`` (issue 20): the official ``mcp`` SDK's low-level ``Server`` behind its
streamable HTTP transport in **stateless JSON-response mode**, so one POST is one answer — what API Gateway's
HTTP API in front of Lambda (no streaming, no sticky sessions) and ``make run`` can serve.

Per request: the caller comes from the verified JWT claims (``mneme.api.entry`` refuses a request without
them), a ``Server`` is built for that caller with the tools of :mod:`mneme.api.mcp_operations`, and the API
Gateway event is handed to the SDK as one ASGI exchange inside ``anyio.run``. Clients of both protocol eras
work: ``initialize`` + ``tools/…`` POSTs (2025) and the per-request envelope of 2026-07-28. ``GET`` (the
server-to-client SSE stream) and ``DELETE`` (session end) have no meaning without sessions: ``405``.

The SDK is imported here on the first ``/mcp`` request only.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from mneme import __version__, observability
from mneme.api.app import MCP_PATH
from mneme.api.mcp_envelope import NOT_A_MESSAGE, envelope_error, params_error, read_message
from mneme.api.mcp_operations import OPERATIONS
from mneme.engine.deps import Deps
from mneme.errors import MnemeError, field_path, validation_text
from mneme.models.user import Caller

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.lowlevel import Server

INSTRUCTIONS = (
    "mneme keeps your long-term memory and runs your agents. Search your memory before answering questions "
    "about you or earlier work; write down what should be remembered; run-agent hands a request to one of "
    "your mneme agents."
)


def handle_mcp(deps: Deps, caller: Caller, event: dict[str, Any]) -> dict[str, Any]:
    """One MCP POST → its JSON answer (an API Gateway HTTP API payload 2.0 response)."""
    method = str(((event.get("requestContext") or {}).get("http") or {}).get("method") or "").upper()
    if method != "POST":
        return _rpc_error(405, "Method Not Allowed: mneme's MCP server is stateless, use POST", {"Allow": "POST"})
    message = read_message(str(event.get("body") or ""))
    refusal = envelope_error(message) or _version_error(event.get("headers") or {})
    if refusal is not None:
        return _rpc_error(400, refusal)
    invalid = params_error(message)
    if invalid is not None:
        return _rpc_error(400, invalid[1], code=-32602, request_id=invalid[0])
    import anyio

    for name in ("mcp", "httpx2"):  # the SDK logs every exchange at INFO: not for a Lambda's log group
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        result = _run_isolated(lambda: anyio.run(_serve, deps, caller, event))
    except Exception as exc:  # a bug is a JSON-RPC error, logged with its traceback, never a bare crash
        observability.logger().exception("unhandled error in the MCP endpoint", error_type=type(exc).__name__)
        return _rpc_error(500, "internal error", code=-32603)
    return _as_json(result)


def _as_json(result: dict[str, Any]) -> dict[str, Any]:
    """The SDK's answer, its plain-text refusals ("Invalid Content-Type header", 400) made JSON-RPC errors: every
    answer of ``/mcp`` is JSON, as every other route's."""
    content_type = next((v for k, v in result["headers"].items() if k.lower() == "content-type"), "")
    if result["statusCode"] < 400:
        return result
    if content_type.lower().startswith("application/json"):
        return _without_dump(result)
    message = str(result.get("body") or "").strip() or "the request was refused"
    return _rpc_error(
        result["statusCode"], message[:200], {k: v for k, v in result["headers"].items() if k.lower() != "content-type"}
    )


def _version_error(headers: dict[str, Any]) -> str | None:
    """MCP's HTTP transport: an unsupported ``MCP-Protocol-Version`` is a 400 (the SDK read it as the 2026 era and
    answered "params._meta must be an object…", naming no version)."""
    from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

    sent = next((str(v) for k, v in headers.items() if str(k).lower() == "mcp-protocol-version"), None)
    if sent is None or sent in SUPPORTED_PROTOCOL_VERSIONS:
        return None
    supported = ", ".join(SUPPORTED_PROTOCOL_VERSIONS)
    return f"Bad Request: unsupported MCP-Protocol-Version {sent[:40]!r} (supported: {supported})"


def _without_dump(result: dict[str, Any]) -> dict[str, Any]:
    """The SDK's -32602 "Validation error: N validation errors for union[JSONRPCRequest,…]" (pydantic's text and
    links, for a message :mod:`mneme.api.mcp_envelope` did not foresee) made -32600 Invalid Request, a JSON-RPC
    error about the message, not about the SDK's models."""
    try:
        error = json.loads(str(result.get("body") or ""))["error"]
    except (ValueError, KeyError, TypeError):
        return result
    if not str(error.get("message", "")).startswith("Validation error"):
        return result
    return _rpc_error(result["statusCode"], f"Invalid Request: {NOT_A_MESSAGE}")


def _run_isolated(job: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``job`` here, or in a dedicated thread when this thread already runs an event loop (``anyio.run``
    refuses to nest one: the caller may be an ASGI server or a test's loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return job()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mneme-mcp") as pool:
        return pool.submit(job).result()


async def _serve(deps: Deps, caller: Caller, event: dict[str, Any]) -> dict[str, Any]:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    manager = StreamableHTTPSessionManager(build_server(deps, caller), stateless=True, json_response=True)
    exchange = _Exchange(event)
    async with manager.run():
        await manager.handle_request(exchange.scope, exchange.receive, exchange.send)
    return exchange.response()


def build_server(deps: Deps, caller: Caller) -> Server[Any]:
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tools = [
        types.Tool(name=op.name, description=op.description, input_schema=op.body.model_json_schema())
        for op in OPERATIONS.values()
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return call(deps, caller, params.name, params.arguments or {})

    return Server(
        "mneme", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
    )


def call(deps: Deps, caller: Caller, name: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
    """One tool call; every failure is a result with ``isError`` the client's model can read."""
    operation = OPERATIONS.get(name)
    if operation is None:
        return _result(f"unknown tool {name!r}; the tools are {', '.join(OPERATIONS)}", error=True)
    try:
        body = operation.body.model_validate(arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = field_path(first.get("loc", ()), "arguments")
        return _result(f"invalid arguments: {field}: {validation_text(first)}", error=True)
    try:
        payload = operation.run(deps, caller, body)
    except MnemeError as exc:
        return _result(f"{exc.code}: {exc.message}", error=True)
    except Exception as exc:  # a bug is still an answer, logged with its traceback; its details stay here
        observability.logger().exception("unhandled error in an MCP tool", tool=name, error_type=type(exc).__name__)
        return _result("internal_error: an unexpected error occurred", error=True)
    return _result(_text(name, payload), structured=payload, error=payload.get("status") == "failed")


def _text(name: str, payload: dict[str, Any]) -> str:
    """What the client's model reads: a run's answer (or why it failed, or where it stands), else the JSON."""
    if name == "run-agent":
        status, run_id = payload.get("status"), payload.get("run_id")
        if status == "succeeded":
            return str(payload.get("output") or "")
        if status == "failed":
            return f"the run {run_id} failed: {payload.get('error')}"
        if status in ("queued", "running", "waiting_approval"):
            return f"the run {run_id} is {status}; it continues in mneme (GET /v1/runs/{run_id})"
    return json.dumps(payload, ensure_ascii=False, default=str)


def _result(text: str, *, structured: dict[str, Any] | None = None, error: bool = False) -> mcp_types.CallToolResult:
    import mcp_types as types

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=json.loads(json.dumps(structured, default=str)) if structured is not None else None,
        is_error=error,
    )


def _rpc_error(
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    *,
    code: int = -32600,
    request_id: str | int | None = None,
) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", **(headers or {})},
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


class _Exchange:
    """An API Gateway HTTP API (payload 2.0) event as one ASGI HTTP exchange, and the answer collected."""

    def __init__(self, event: dict[str, Any]) -> None:
        import anyio

        http = (event.get("requestContext") or {}).get("http") or {}
        headers = event.get("headers") or {}
        self.scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "https",
            "path": MCP_PATH,
            "raw_path": MCP_PATH.encode(),
            "query_string": str(event.get("rawQueryString") or "").encode("latin-1", "replace"),
            "root_path": "",
            "headers": [
                (str(k).lower().encode("latin-1", "replace"), str(v).encode("latin-1", "replace"))
                for k, v in headers.items()
            ],
            "client": (str(http.get("sourceIp") or "0.0.0.0"), 0),
            "server": (str(headers.get("host") or "mneme"), 443),
        }
        self._body = str(event.get("body") or "").encode("utf-8")
        self._delivered = False
        self._done = anyio.Event()
        self._status = 500
        self._headers: dict[str, str] = {}
        self._chunks: list[bytes] = []

    async def receive(self) -> dict[str, Any]:
        if not self._delivered:
            self._delivered = True
            return {"type": "http.request", "body": self._body, "more_body": False}
        await self._done.wait()  # the client "disconnects" only once its answer was sent
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self._status = int(message["status"])
            for raw_name, raw_value in message.get("headers") or []:
                name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
                self._headers[name] = f"{self._headers[name]}, {value}" if name in self._headers else value
        elif message["type"] == "http.response.body":
            self._chunks.append(message.get("body") or b"")
            if not message.get("more_body"):
                self._done.set()

    def response(self) -> dict[str, Any]:
        self._headers.pop("content-length", None)
        return {
            "statusCode": self._status,
            "headers": self._headers,
            "body": b"".join(self._chunks).decode("utf-8", "replace"),
            "isBase64Encoded": False,
        }
