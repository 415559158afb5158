"""In-memory fakes of the MCP tool source and the secret store (issue 20)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mneme.errors import McpUnavailable, SecretUnavailable
from mneme.ports.mcp import McpCallResult, McpEndpoint, McpToolInfo

Handler = Callable[[str, dict[str, Any]], McpCallResult | str]


@dataclass
class FakeMcpServer:
    tools: list[McpToolInfo] = field(default_factory=list)
    handler: Handler | None = None
    down: bool = False


@dataclass(frozen=True)
class SeenRequest:
    operation: str  # "list" or "call"
    url: str
    headers: dict[str, str]
    tool: str | None = None
    arguments: dict[str, Any] | None = None


class FakeMcpToolSource:
    """MCP servers by URL; every operation is recorded (with the headers it carried)."""

    def __init__(self) -> None:
        self.servers: dict[str, FakeMcpServer] = {}
        self.seen: list[SeenRequest] = []

    def add(self, url: str, tools: list[McpToolInfo], handler: Handler | None = None) -> FakeMcpServer:
        self.servers[url] = FakeMcpServer(list(tools), handler)
        return self.servers[url]

    def _server(self, endpoint: McpEndpoint) -> FakeMcpServer:
        server = self.servers.get(endpoint.url)
        if server is None or server.down:
            raise McpUnavailable("connection failed: ConnectError: All connection attempts failed")
        return server

    def list_tools(self, endpoint: McpEndpoint) -> list[McpToolInfo]:
        self.seen.append(SeenRequest("list", endpoint.url, dict(endpoint.headers)))
        return list(self._server(endpoint).tools)

    def call_tool(self, endpoint: McpEndpoint, name: str, arguments: dict[str, Any]) -> McpCallResult:
        self.seen.append(SeenRequest("call", endpoint.url, dict(endpoint.headers), name, dict(arguments)))
        server = self._server(endpoint)
        if server.handler is None:
            return McpCallResult(f"{name} called with {sorted(arguments.items())}")
        result = server.handler(name, arguments)
        return McpCallResult(result) if isinstance(result, str) else result

    def calls(self) -> list[SeenRequest]:
        return [request for request in self.seen if request.operation == "call"]

    def lists(self) -> list[SeenRequest]:
        return [request for request in self.seen if request.operation == "list"]


class FakeSecrets:
    """Secrets by (owner, ref): an agent's owner reads only its own."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], str] = {}
        self.reads: list[tuple[str, str]] = []

    def put(self, owner: str, ref: str, value: str) -> None:
        self.values[(owner, ref)] = value

    def get_secret(self, ref: str, *, owner: str) -> str:
        self.reads.append((owner, ref))
        value = self.values.get((owner, ref))
        if value is None:
            raise SecretUnavailable(f"secret {ref!r} does not exist for this owner")
        return value
