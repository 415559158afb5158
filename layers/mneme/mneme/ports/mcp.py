"""The MCP ports (issue 20): servers, their tools and calls, and the secrets their auth reads.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mneme.records import Record, field

if TYPE_CHECKING:
    pass


class OAuthClientCredentials(Record):
    """The client credentials grant of one MCP server (the secret already resolved)."""

    token_url: str
    client_id: str
    client_secret: str = field(repr=False)
    scope: str | None = None


class McpEndpoint(Record):
    """Where and how to reach one MCP server: the URL, the headers of every request (a bearer token, a
    forwarded user id), the OAuth credentials to get a token with, and the time one operation may take."""

    url: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    oauth: OAuthClientCredentials | None = None
    timeout_seconds: float = 10.0


class McpToolInfo(Record):
    """One tool as an MCP server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]


class McpCallResult(Record):
    """A tool call's result as text (text blocks joined; other content summarized), and whether the server
    reported it as an error (``isError``)."""

    text: str
    is_error: bool = False


class McpToolSource(Protocol):
    def list_tools(self, endpoint: McpEndpoint) -> list[McpToolInfo]:
        """Every tool the server lists (all pages); raise McpUnavailable when it cannot be reached or answers
        something that is not MCP."""
        ...

    def call_tool(self, endpoint: McpEndpoint, name: str, arguments: dict[str, Any]) -> McpCallResult:
        """Call one tool; raise McpUnavailable on a transport or protocol failure (a tool's own failure is a
        result with ``is_error``)."""
        ...


class SecretStore(Protocol):
    def get_secret(self, ref: str, *, owner: str) -> str:
        """The value of the secret ``ref`` for an agent of ``owner`` (a user id or ``GLOBAL_OWNER``); raise
        SecretUnavailable when it does not exist, cannot be read, or is not one this owner may use."""
        ...
