"""The MCP client of the run function (issue 20): the official ``mcp`` SDK over streamable HTTP.

The SDK (and httpx2, anyio, Starlette, cryptography below it) is imported on first use only, so a cold start
whose agents list no MCP server never loads it (``tests/functional/test_mcp_import.py``). Each operation is
one ``anyio.run`` with a fresh :class:`mcp.Client`, bounded as a whole by the endpoint's timeout. The first
operation on a server negotiates in ``auto`` mode (``server/discover``, falling back to the ``initialize``
handshake of older servers); what worked is kept per container — a 2026-era server's discover result is
adopted, an older server gets the handshake without a discover attempt — so each later operation costs one
request less, until an operation on that server fails.

What a hostile or broken server can do is bounded here:

* **Where**: on AWS only ``https`` URLs whose host resolves to public addresses (no loopback, private,
  link-local — the Lambda runtime API and instance metadata live there — or reserved ranges); redirects are not
  followed. Local mode allows plain http and loopback (``allow_private_networks``). The check runs before each
  request, the token request included (a name that changes its answer between the check and the connection
  is not caught: the check is against mistakes and plain SSRF, not DNS rebinding).
* **How much**: every HTTP response is cut off at :data:`MCP_MAX_RESPONSE_BYTES`, which ends the operation at
  once with that reason (no resumed stream reads another answer); a stream ended unanswered is resumed at most
  :data:`~mneme.adapters.mcp.http.MAX_RESUMPTIONS` times; the endpoint's timeout bounds the whole operation,
  headers and never-ending SSE streams included. The engine also caps the text.
* **Failures**: anything that goes wrong (connection, timeout, HTTP status, JSON-RPC error, a result that is
  not MCP) is :class:`McpUnavailable` with a short reason — never an exception of the SDK.

OAuth client credentials: the token is fetched from the configured token URL (client_secret_basic) and kept
per container until 30 s before it expires; a ``401`` from the server drops it and the operation is tried once
more with a new one.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mneme.adapters.mcp.http import Operation, check_destination, guarded_transport
from mneme.errors import McpUnavailable
from mneme.observability import traced
from mneme.ports.mcp import McpCallResult, McpEndpoint, McpToolInfo, OAuthClientCredentials
from mneme.spec_limits import MCP_MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    import httpx2
    from mcp import Client

T = TypeVar("T")
MAX_PAGES = 20  # tools/list pages read from one server
TOKEN_MARGIN_SECONDS = 30.0


#: the most characters of a server's own error text a reason quotes
SHORT_STATUS = 120


class SdkMcpToolSource:
    def __init__(
        self, *, allow_private_networks: bool = False, max_response_bytes: int = MCP_MAX_RESPONSE_BYTES
    ) -> None:
        self._allow_private = allow_private_networks
        self._max_bytes = max_response_bytes
        self._tokens: dict[str, tuple[str, float]] = {}
        self._eras: dict[str, tuple[str, Any]] = {}  # URL → (mode, DiscoverResult | None) that worked last
        self._lock = threading.Lock()

    @traced("mcp.list_tools")
    def list_tools(self, endpoint: McpEndpoint) -> list[McpToolInfo]:
        async def operation(client: Client) -> list[McpToolInfo]:
            tools: list[McpToolInfo] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page = await client.list_tools(cursor=cursor)
                tools += [McpToolInfo(t.name, t.description or "", dict(t.input_schema or {})) for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        return self._run(endpoint, operation)

    @traced("mcp.call_tool")
    def call_tool(self, endpoint: McpEndpoint, name: str, arguments: dict[str, Any]) -> McpCallResult:
        async def operation(client: Client) -> McpCallResult:
            from mcp_types import CallToolResult

            await client.list_tools()  # the SDK reads x-mcp-header routing and output schemas from the listing
            result = await client.call_tool(name, arguments)
            if not isinstance(result, CallToolResult):
                raise McpUnavailable(f"the tool answered a {type(result).__name__}, which mneme cannot complete")
            return McpCallResult(result_text(result), bool(result.is_error))

        return self._run(endpoint, operation)

    # ------------------------------------------------------------------------------------------ plumbing
    def _run(self, endpoint: McpEndpoint, operation: Callable[[Client], Awaitable[T]]) -> T:
        import logging

        import anyio

        for name in ("mcp", "httpx2"):  # they log every request at INFO (URLs included): not for a log group
            logging.getLogger(name).setLevel(logging.WARNING)
        for attempt in (1, 2):
            try:
                return anyio.run(self._session, endpoint, operation)
            except Exception as exc:  # the SDK, httpx2 and anyio raise many types, often in exception groups
                with self._lock:
                    self._eras.pop(endpoint.url, None)  # negotiated afresh next time
                leaf = _leaf(exc)
                if not isinstance(leaf, _Unauthorized):
                    raise (leaf if isinstance(leaf, McpUnavailable) else _unavailable(leaf, endpoint)) from None
                if endpoint.oauth is None or attempt == 2:
                    raise McpUnavailable("the server refused the credentials (HTTP 401)") from None
                self._forget_token(endpoint.oauth)  # revoked or rotated: one more try with a new token
        raise AssertionError("unreachable")  # pragma: no cover

    async def _session(self, endpoint: McpEndpoint, operation: Callable[[Client], Awaitable[T]]) -> T:
        import anyio

        limits = Operation(self._max_bytes)
        with anyio.fail_after(endpoint.timeout_seconds):
            with anyio.CancelScope() as scope:
                limits.on_cut_off = scope.cancel  # an answer over the limit ends the operation at once
                try:
                    return await self._operate(endpoint, operation, limits)
                except Exception:
                    if limits.cut_off is None:
                        raise  # else the SDK's account of the cut-off stream: the reason is the limit's
            raise McpUnavailable(limits.cut_off or "the operation was cut off")

    async def _operate(
        self, endpoint: McpEndpoint, operation: Callable[[Client], Awaitable[T]], limits: Operation
    ) -> T:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        transport = guarded_transport(self._allow_private, limits)
        async with httpx2.AsyncClient(
            transport=transport,
            headers=endpoint.headers,
            timeout=httpx2.Timeout(endpoint.timeout_seconds),
            follow_redirects=False,
        ) as http:
            check_destination(endpoint.url, allow_private=self._allow_private)
            if endpoint.oauth is not None:
                http.headers["Authorization"] = f"Bearer {await self._token(http, endpoint.oauth)}"
            http.event_hooks["response"] = [_refuse_401]
            stream = streamable_http_client(endpoint.url, http_client=http, terminate_on_close=False)
            with self._lock:
                era = self._eras.get(endpoint.url)
            mode, prior = era if era is not None else ("auto", None)
            async with Client(
                stream, mode=mode, prior_discover=prior, cache=None, read_timeout_seconds=endpoint.timeout_seconds
            ) as client:
                result = await operation(client)
                if era is None:
                    with self._lock:
                        self._eras[endpoint.url] = _era(client)
                return result

    async def _token(self, http: httpx2.AsyncClient, oauth: OAuthClientCredentials) -> str:
        key = _token_key(oauth)
        with self._lock:
            cached = self._tokens.get(key)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        check_destination(oauth.token_url, allow_private=self._allow_private)
        basic = base64.b64encode(f"{_form(oauth.client_id)}:{_form(oauth.client_secret)}".encode()).decode()
        form = {"grant_type": "client_credentials", **({"scope": oauth.scope} if oauth.scope else {})}
        response = await http.post(
            oauth.token_url,
            data=form,
            headers={"Authorization": f"Basic {basic}", "Accept": "application/json"},
        )
        if response.status_code != 200:
            raise McpUnavailable(f"the token endpoint answered HTTP {response.status_code}")
        try:
            body = response.json()
            token, lifetime = str(body["access_token"]), float(body.get("expires_in") or 300)
        except (ValueError, KeyError, TypeError):
            raise McpUnavailable("the token endpoint's answer holds no access_token") from None
        with self._lock:
            self._tokens[key] = (token, time.monotonic() + max(lifetime - TOKEN_MARGIN_SECONDS, 1.0))
        return token

    def _forget_token(self, oauth: OAuthClientCredentials) -> None:
        with self._lock:
            self._tokens.pop(_token_key(oauth), None)


def _era(client: Client) -> tuple[str, Any]:
    """How the next operation on this server connects: adopting its discover result (2026 era), or straight
    to the initialize handshake (a server that could not discover)."""
    session = client.session
    if session.discover_result is not None and session.protocol_version:
        return session.protocol_version, session.discover_result
    return "legacy", None


class _Unauthorized(Exception):
    """The MCP server answered 401 (a cached OAuth token may have been revoked)."""


async def _refuse_401(response: httpx2.Response) -> None:
    if response.status_code == 401:
        raise _Unauthorized()


def _token_key(oauth: OAuthClientCredentials) -> str:
    material = json.dumps([oauth.token_url, oauth.client_id, oauth.client_secret, oauth.scope])
    return hashlib.sha256(material.encode()).hexdigest()


def _form(value: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(value)  # RFC 6749 §2.3.1: the credentials are form-encoded before Basic


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _unavailable(exc: BaseException, endpoint: McpEndpoint) -> McpUnavailable:
    import httpx2
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, TimeoutError | httpx2.TimeoutException):
        reason = f"no answer within {endpoint.timeout_seconds:g} s"
    elif isinstance(exc, MCPError):
        reason = f"MCP error {exc.code}: {_short(exc.message)}"
    elif isinstance(exc, httpx2.LocalProtocolError):  # its text quotes the refused header, a credential maybe
        reason = "the request could not be sent: a header or the URL is not valid HTTP"
    elif isinstance(exc, httpx2.HTTPStatusError):
        reason = f"HTTP {exc.response.status_code}"
    elif isinstance(exc, httpx2.TransportError | OSError):
        reason = f"connection failed: {type(exc).__name__}: {_short(str(exc))}"
    else:
        reason = f"{type(exc).__name__}: {_short(str(exc))}"
    return McpUnavailable(reason)


def _short(text: str) -> str:
    """A short status of what the server said, never its answer: the first line, cut at ``SHORT_STATUS`` — a
    parse error's later lines quote the body of whatever answered (maybe an internal service), run events
    show the reason."""
    first = text.split("\n", 1)[0]
    return first if len(first) <= SHORT_STATUS else first[: SHORT_STATUS - 1] + "…"


def result_text(result: Any) -> str:
    """A tool result as text: text blocks (and embedded text resources) in order, other content named and
    summarized; the structured content when there is no text at all."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {block.mime_type}: {len(block.data)} base64 characters, not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource {block.name}: {block.uri}]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource {resource.uri}: binary, not shown]")
        else:
            parts.append(f"[{kind or 'unknown'} content, not shown]")
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False, sort_keys=True, default=str)
    return "\n".join(parts)
