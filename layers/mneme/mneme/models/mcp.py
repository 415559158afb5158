"""MCP servers an agent uses (issue 20): their configuration, and the tools discovered on them.

A tool of server ``weather`` named ``forecast`` is offered to the model as ``weather__forecast``. Server
names are slugs (no ``_``), so the first ``__`` of an offered name always separates server and tool.
"""

from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from mneme.egress import host_problem
from mneme.models.common import Number
from mneme.spec_limits import MCP_TIMEOUT_DEFAULT_SECONDS, MCP_TIMEOUT_MAX_SECONDS

#: the separator between the server's name and the tool's own name in an offered tool name
NAME_SEPARATOR = "__"

McpServerName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,31}$")]
#: a secret reference: a Secrets Manager ARN or name (AWS), an environment variable name (local mode)
SecretRef = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9/_+=.@:-]{1,2048}$")]
HeaderName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$")]
Url = Annotated[str, StringConstraints(min_length=8, max_length=2048)]

#: headers mneme sets itself (transport, auth): a forwarded user id may not take their place
_RESERVED_HEADERS = frozenset(
    {"authorization", "host", "content-type", "content-length", "accept", "connection", "cookie", "transfer-encoding"}
)


def check_url(value: str, field_name: str = "url") -> str:
    """An absolute ``http(s)`` URL without credentials or fragment (where it may point is checked at call time)."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{field_name} must be an absolute http(s) URL")
    if parts.username or parts.password:
        raise ValueError(f"{field_name} must not carry credentials (use auth)")
    if parts.fragment:
        raise ValueError(f"{field_name} must not have a fragment")
    return value


def destination_problem(url: str, *, allow_private: bool) -> str | None:
    """Why ``url`` may not be called where only public https servers may be (None when it may). Only what the
    URL itself says — the scheme, an IP literal, ``localhost`` —; the MCP client also checks what the name
    resolves to before each request."""
    if allow_private:
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme != "https":
        return f"{url!r}: MCP servers must use https in this deployment"
    problem = host_problem(host)
    return f"{url!r}: MCP servers must be public, this is {problem}" if problem else None


class McpAuth(BaseModel, defer_build=True):
    """How mneme authenticates to an MCP server.

    * ``none``;
    * ``bearer``: ``Authorization: Bearer <secret>``;
    * ``oauth_client_credentials``: a token from ``token_url`` (client credentials grant, RFC 6749 §4.4) for
      ``client_id`` with the client secret ``secret`` (and ``scope`` when given), cached until it expires.

    ``secret`` is a reference, never the value: a Secrets Manager secret under the deployment's prefix and the
    agent owner's folder on AWS, an environment variable named ``MNEME_MCP_SECRET_…`` in local mode.
    """

    model_config = ConfigDict(extra="forbid")

    type: Literal["none", "bearer", "oauth_client_credentials"] = "none"
    secret: SecretRef | None = None
    token_url: Url | None = None
    client_id: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    scope: Annotated[str, StringConstraints(max_length=1024)] | None = None

    @field_validator("token_url")
    @classmethod
    def _token_url(cls, value: str | None) -> str | None:
        return None if value is None else check_url(value, "token_url")

    @model_validator(mode="after")
    def _complete(self) -> Self:
        oauth = (self.token_url, self.client_id, self.scope)
        if self.type == "none" and (self.secret is not None or any(v is not None for v in oauth)):
            raise ValueError("auth type 'none' takes no secret, token_url, client_id or scope")
        if self.type == "bearer" and (self.secret is None or any(v is not None for v in oauth)):
            raise ValueError("auth type 'bearer' needs a secret (and nothing else)")
        if self.type == "oauth_client_credentials" and (
            self.secret is None or not self.token_url or not self.client_id
        ):
            raise ValueError("auth type 'oauth_client_credentials' needs token_url, client_id and secret")
        return self


STDIO_UNSUPPORTED = (
    "stdio MCP servers (a command to start) are not supported: mneme calls MCP servers over streamable HTTP. "
    "Run the server behind a bridge, e.g. `npx mcp-proxy --port 8931 -- <command> <args>`, and give its URL "
    "(http://127.0.0.1:8931/mcp) — README, 'MCP, both ways'"
)


class McpServer(BaseModel, defer_build=True):
    """One MCP server an agent uses (streamable HTTP)."""

    model_config = ConfigDict(extra="forbid")

    name: McpServerName
    url: Url
    auth: McpAuth = McpAuth()
    #: when set, every request carries the caller's user id in this header (for a server that trusts it)
    forward_user_id_header: HeaderName | None = None
    timeout_seconds: Annotated[float, Field(gt=0, le=MCP_TIMEOUT_MAX_SECONDS), Number] = MCP_TIMEOUT_DEFAULT_SECONDS

    @model_validator(mode="before")
    @classmethod
    def _not_stdio(cls, value: Any) -> Any:
        """A stdio server (a command to start, as desktop clients configure them) is refused by its name."""
        if isinstance(value, dict) and ({"command", "args"} & value.keys() or value.get("transport") == "stdio"):
            raise ValueError(STDIO_UNSUPPORTED)
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_url(value)

    @field_validator("forward_user_id_header")
    @classmethod
    def _header(cls, value: str | None) -> str | None:
        if value is not None and (value.lower() in _RESERVED_HEADERS or value.lower().startswith("mcp-")):
            raise ValueError(f"header {value!r} is set by mneme itself")
        return value


class McpTool(BaseModel, defer_build=True):
    """A tool discovered on an MCP server at run start, as it is offered for the whole run."""

    model_config = ConfigDict(frozen=True)

    name: str  # the offered name, ``<server>__<tool>``
    server: str
    tool: str  # the server's own name of the tool
    description: str
    input_schema: dict[str, Any]


def offered_name(server: str, tool: str) -> str:
    return f"{server}{NAME_SEPARATOR}{tool}"


def check_servers(servers: list[McpServer], external_tool_names: list[str]) -> list[McpServer]:
    """Server names are unique, and no external tool takes a name in a server's namespace (``<server>__…``)."""
    names = [server.name for server in servers]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"MCP server names must be unique: {', '.join(duplicates)}")
    for tool in external_tool_names:
        server = tool.split(NAME_SEPARATOR, 1)[0] if NAME_SEPARATOR in tool else None
        if server in names:
            raise ValueError(f"external tool {tool!r} is in the namespace of MCP server {server!r}")
    return servers
