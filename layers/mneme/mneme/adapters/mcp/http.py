"""Where the MCP client may connect, and how much it reads (issue 20, :mod:`mneme.adapters.mcp.client`).

Where only public servers may be called (AWS): ``https`` only, and every address the host resolves to must be
global (no loopback, private, link-local, reserved or multicast address: :mod:`mneme.egress`). Every answer
is cut off at a byte limit, and the :class:`Operation` it belongs to ends at once then: no later request
of that operation is sent (the SDK would resume the stream, each resumption a fresh answer to read), and the
operation fails with that reason (the SDK reports a cut-off SSE stream as merely "ended"). A stream the
server ends without an answer is resumed at most :data:`MAX_RESUMPTIONS` times per operation (the SDK resumes
one that sent an event id for as long as the server keeps ending it). httpx2 is imported on first use only
(the transport class is built then).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mneme.egress import resolve_public
from mneme.errors import McpUnavailable

if TYPE_CHECKING:
    import httpx2

#: how often one operation resumes an SSE stream its server ended without an answer (``Last-Event-ID``)
MAX_RESUMPTIONS = 3


class Operation:
    """The limits of one MCP operation's HTTP answers, and why it was cut off (None while it was not)."""

    def __init__(self, max_bytes: int, on_cut_off: Callable[[], None] = lambda: None) -> None:
        self.max_bytes, self.on_cut_off = max_bytes, on_cut_off
        self.cut_off: str | None = None
        self.resumptions = 0

    def cut(self, reason: str) -> McpUnavailable:
        """End the operation with ``reason`` (the first reason stays): the error to raise where it happened."""
        if self.cut_off is None:
            self.cut_off = reason
            self.on_cut_off()
        return McpUnavailable(self.cut_off)

    def too_large(self) -> McpUnavailable:
        return self.cut(f"the server's answer is larger than {self.max_bytes} bytes")

    def admit(self, request: httpx2.Request) -> None:
        """Refuse a request once the operation was cut off, or a resumption past :data:`MAX_RESUMPTIONS`."""
        if self.cut_off is not None:
            raise McpUnavailable(self.cut_off)
        if "last-event-id" in request.headers:
            self.resumptions += 1
            if self.resumptions > MAX_RESUMPTIONS:
                raise self.cut(f"the server ended its SSE stream without an answer more than {MAX_RESUMPTIONS} times")


def check_destination(url: str, *, allow_private: bool) -> str | None:
    """Raise McpUnavailable unless ``url`` may be called (see the module doc); nothing to check when private
    networks are allowed (local mode). Answers the checked address to connect to (None in local mode)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if allow_private:
        return None
    if parts.scheme != "https":
        raise McpUnavailable(f"{parts.scheme}:// is not allowed here; MCP servers must use https")
    address, problem = resolve_public(host, parts.port or 443)
    if address is None:
        raise McpUnavailable(problem or f"the host {host!r} is refused")
    return address


def _make_guarded_transport() -> type:
    import httpx2

    class Limited(httpx2.AsyncByteStream):
        """A response body stream that ends the operation once more than its byte limit arrived."""

        def __init__(self, stream: httpx2.AsyncByteStream, operation: Operation) -> None:
            self._stream, self._operation = stream, operation

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in self._stream:
                seen += len(chunk)
                if seen > self._operation.max_bytes:
                    raise self._operation.too_large()
                yield chunk

        async def aclose(self) -> None:
            await self._stream.aclose()

    class GuardedTransport(httpx2.AsyncHTTPTransport):
        def __init__(self, allow_private: bool, operation: Operation) -> None:
            super().__init__()
            self._allow_private, self._operation = allow_private, operation

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            self._operation.admit(request)
            address = check_destination(str(request.url), allow_private=self._allow_private)
            if address is not None:  # connect to the address checked, not to a second resolution of the name
                request.extensions = {**request.extensions, "sni_hostname": request.url.host}
                request.url = request.url.copy_with(host=address)  # the Host header keeps the name
            response = await super().handle_async_request(request)
            length = response.headers.get("content-length")
            if length and length.isdigit() and int(length) > self._operation.max_bytes:
                await response.aclose()
                raise self._operation.too_large()
            assert isinstance(response.stream, httpx2.AsyncByteStream)
            response.stream = Limited(response.stream, self._operation)
            return response

    return GuardedTransport


def guarded_transport(allow_private: bool, limits: Operation | int) -> Any:
    """An httpx2 transport for one operation: each request's destination checked, each answer cut at the
    operation's byte limit (``limits``: the operation, or the byte limit of a new one)."""
    global _TRANSPORT  # noqa: PLW0603 - the class is built once, after httpx2 is imported
    if _TRANSPORT is None:
        _TRANSPORT = _make_guarded_transport()
    return _TRANSPORT(allow_private, limits if isinstance(limits, Operation) else Operation(limits))


_TRANSPORT: Any = None
