"""A real MCP server for the tests (issue 20): the official SDK's ``MCPServer`` (FastMCP style) over streamable
HTTP, served by uvicorn in a thread on an OS-assigned loopback port.

Around the SDK's ASGI app sits a small gate that records every HTTP request (method, path, headers), checks
``Authorization`` when a token is required, and serves ``POST /token`` (the OAuth client credentials grant,
client_secret_basic) when an OAuth client is configured.
"""

from __future__ import annotations

import base64
import itertools
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""

    @property
    def rpc_method(self) -> str | None:
        """The JSON-RPC method of an MCP POST (``initialize``, ``tools/call`` …)."""
        try:
            message = json.loads(self.body) if self.body else None
        except ValueError:
            return None
        return message.get("method") if isinstance(message, dict) else None


@dataclass
class OAuthClient:
    client_id: str
    client_secret: str
    tokens: list[str] = field(default_factory=list)  # every token issued, newest last


def tools_server(calls: list[tuple[str, dict[str, Any]]]) -> MCPServer:
    """``add``, ``echo``, ``fail`` (a tool error), ``crash`` (an unexpected exception), ``big``."""
    server = MCPServer("test-tools", log_level="WARNING")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.append(("add", {"a": a, "b": b}))
        return a + b

    @server.tool()
    def echo(text: str) -> str:
        """Answer the text."""
        calls.append(("echo", {"text": text}))
        return text

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails with the given reason."""
        calls.append(("fail", {"reason": reason}))
        raise ToolError(f"the tool failed on purpose: {reason}")

    @server.tool()
    def big(size: int) -> str:
        """Answer ``size`` characters."""
        calls.append(("big", {"size": size}))
        return "x" * size

    return server


class McpTestServer:
    def __init__(self, *, token: str | None = None, oauth: OAuthClient | None = None, legacy: bool = False) -> None:
        """``legacy``: answer ``server/discover`` with "method not found", like a server of the 2025 protocol."""
        import uvicorn

        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.seen: list[Seen] = []
        self.token = token
        self.oauth = oauth
        self.legacy = legacy
        self._counter = itertools.count(1)
        app = tools_server(self.calls).streamable_http_app(stateless_http=True, json_response=True)
        self._app = app
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(self._gate, log_level="warning", lifespan="on", interface="asgi3"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def token_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/token"

    def start(self) -> McpTestServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the MCP test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def mcp_requests(self) -> list[Seen]:
        return [s for s in self.seen if s.path == "/mcp"]

    def token_requests(self) -> list[Seen]:
        return [s for s in self.seen if s.path == "/token"]

    def tool_calls(self, name: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        return [call for call in self.calls if name is None or call[0] == name]

    # ------------------------------------------------------------------------------------------ the gate
    async def _gate(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        body = await _read(receive)
        self.seen.append(Seen(scope["method"], scope["path"], headers, body))
        if scope["path"] == "/token" and self.oauth is not None:
            await self._token(headers, body, send)
            return
        expected = self._expected_token()
        if expected is not None and headers.get("authorization") != f"Bearer {expected}":
            await _answer(send, 401, {"error": "invalid_token"}, {"www-authenticate": "Bearer"})
            return
        request = self.seen[-1]
        if self.legacy and request.rpc_method == "server/discover":
            message_id = json.loads(body).get("id")
            error = {"code": -32601, "message": "Method not found"}
            await _answer(send, 200, {"jsonrpc": "2.0", "id": message_id, "error": error})
            return
        delivered = False

        async def replay() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            message: dict[str, Any] = await receive()
            return message

        await self._app(scope, replay, send)

    def _expected_token(self) -> str | None:
        if self.oauth is not None:
            return self.oauth.tokens[-1] if self.oauth.tokens else "no token issued yet"
        return self.token

    def rpc_methods(self) -> list[str | None]:
        return [s.rpc_method for s in self.mcp_requests()]

    async def _token(self, headers: dict[str, str], body: bytes, send: Any) -> None:
        assert self.oauth is not None
        form = parse_qs(body.decode())
        basic = base64.b64encode(f"{self.oauth.client_id}:{self.oauth.client_secret}".encode()).decode()
        if headers.get("authorization") != f"Basic {basic}" or form.get("grant_type") != ["client_credentials"]:
            await _answer(send, 401, {"error": "invalid_client"})
            return
        token = f"token-{next(self._counter)}"
        self.oauth.tokens.append(token)
        await _answer(send, 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600})


async def _read(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += bytes(message.get("body", b""))
        if not message.get("more_body"):
            return body


async def _answer(send: Any, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    raw = json.dumps(body).encode()
    pairs = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    pairs += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": pairs})
    await send({"type": "http.response.body", "body": raw})


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"
