"""What an MCP failure says about the answer that caused it (issue 31 defect 8): a short status, never the
answer of whatever service answered (a failure's reason is shown in the run's events)."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from mneme.adapters.mcp.client import SdkMcpToolSource
from mneme.errors import McpUnavailable
from mneme.ports.mcp import McpEndpoint
from tests.support.serving import serving

BODY = ("INTERNAL-ADMIN-PANEL " * 40).encode()


class _Internal(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def internal() -> Iterator[str]:
    with serving(HTTPServer(("127.0.0.1", 0), _Internal)) as server:  # a free port: tests run in parallel workers
        yield f"http://127.0.0.1:{server.server_port}/mcp"


def test_a_non_mcp_answer_is_reported_by_a_short_status_without_its_body(internal: str) -> None:
    source = SdkMcpToolSource(allow_private_networks=True)
    with pytest.raises(McpUnavailable) as failure:
        source.list_tools(McpEndpoint(url=internal, timeout_seconds=5))
    message = str(failure.value)
    assert "INTERNAL-ADMIN-PANEL" not in message
    assert message.startswith("MCP error -32700") and len(message) <= 160


def test_a_header_value_http_cannot_carry_is_reported_without_the_value(internal: str) -> None:
    # an access token with a line break (a hostile token endpoint, a pasted secret): h11 refuses to send it
    # and its error quotes the whole header, credential included
    source = SdkMcpToolSource(allow_private_networks=True)
    headers = {"Authorization": "Bearer tok-SECRET-1234\nX-Injected: 1"}
    with pytest.raises(McpUnavailable) as failure:
        source.list_tools(McpEndpoint(url=internal, headers=headers, timeout_seconds=5))
    message = str(failure.value)
    assert "SECRET-1234" not in message and "Bearer" not in message
    assert "not valid HTTP" in message
