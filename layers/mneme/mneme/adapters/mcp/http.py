"""Where the MCP client may connect, and how much it reads (issue 20, :mod:`mneme.adapters.mcp.client`).

Where only public servers may be called (AWS): ``https`` only, and every address the host resolves to must be
global (no loopback, private, link-local, reserved or multicast address). Every answer is cut off at a byte
limit. httpx2 is imported on first use only (the transport class is built then).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mneme.egress import resolve_public
from mneme.errors import McpUnavailable

if TYPE_CHECKING:
    import httpx2


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
        """A response body stream that fails once more than ``limit`` bytes arrived."""

        def __init__(self, stream: httpx2.AsyncByteStream, limit: int) -> None:
            self._stream, self._limit = stream, limit

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in self._stream:
                seen += len(chunk)
                if seen > self._limit:
                    raise McpUnavailable(f"the server's answer is larger than {self._limit} bytes")
                yield chunk

        async def aclose(self) -> None:
            await self._stream.aclose()

    class GuardedTransport(httpx2.AsyncHTTPTransport):
        def __init__(self, allow_private: bool, max_bytes: int) -> None:
            super().__init__()
            self._allow_private, self._max_bytes = allow_private, max_bytes

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            address = check_destination(str(request.url), allow_private=self._allow_private)
            if address is not None:  # connect to the address checked, not to a second resolution of the name
                request.extensions = {**request.extensions, "sni_hostname": request.url.host}
                request.url = request.url.copy_with(host=address)  # the Host header keeps the name
            response = await super().handle_async_request(request)
            length = response.headers.get("content-length")
            if length and length.isdigit() and int(length) > self._max_bytes:
                await response.aclose()
                raise McpUnavailable(f"the server's answer is larger than {self._max_bytes} bytes")
            assert isinstance(response.stream, httpx2.AsyncByteStream)
            response.stream = Limited(response.stream, self._max_bytes)
            return response

    return GuardedTransport


def guarded_transport(allow_private: bool, max_bytes: int) -> Any:
    """An httpx2 transport that checks each request's destination and cuts each answer at ``max_bytes``."""
    global _TRANSPORT  # noqa: PLW0603 - the class is built once, after httpx2 is imported
    if _TRANSPORT is None:
        _TRANSPORT = _make_guarded_transport()
    return _TRANSPORT(allow_private, max_bytes)


_TRANSPORT: Any = None
