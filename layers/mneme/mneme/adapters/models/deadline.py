"""A deadline over a whole HTTP exchange (connect, TLS handshake, request, status line, headers, body).

A socket timeout bounds each read, not an answer: a server sending its headers a byte at a time, each within
the timeout, holds a call for as long as it likes. :func:`bounded` runs a block under a deadline: the
connections the block uses (those of a pool built with :func:`deadline_connection`) are registered with it,
and when the deadline passes a timer thread shuts their sockets down, so whatever read or write blocks there
fails at once; :attr:`Exchange.expired` then tells the caller that the failure is the deadline's.
"""

from __future__ import annotations

import contextlib
import contextvars
import socket
import threading
from collections.abc import Iterator
from typing import Any

_CURRENT: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar("mneme_http_exchange", default=None)


class Exchange:
    """The connections one bounded block used, and whether its deadline passed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: list[Any] = []
        self._open = True
        self.expired = False

    def register(self, connection: Any) -> None:
        with self._lock:
            if connection not in self._connections:
                self._connections.append(connection)

    def expire(self) -> None:
        """The deadline passed: shut down every socket the block used (a blocked read or write returns)."""
        with self._lock:
            if not self._open:
                return
            self.expired = True
            sockets = [getattr(connection, "sock", None) for connection in self._connections]
        for sock in sockets:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._lock:
            self._open = False


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[Exchange]:
    """Run the block with every exchange of a deadline connection cut off ``seconds`` from now."""
    exchange = Exchange()
    token = _CURRENT.set(exchange)
    timer = threading.Timer(max(seconds, 0.0), exchange.expire)
    timer.daemon = True
    timer.start()
    try:
        yield exchange
    finally:
        exchange.close()
        timer.cancel()
        _CURRENT.reset(token)


def _register(connection: Any) -> None:
    exchange = _CURRENT.get()
    if exchange is not None:
        exchange.register(connection)


def deadline_connection(connection: type) -> type:
    """``connection`` (a urllib3 connection class) registering with the running :func:`bounded` block when it
    connects (new connections: before the TCP and TLS handshakes) and when it sends a request (pooled ones)."""

    class Bounded(connection):  # type: ignore[misc]
        def _new_conn(self) -> Any:
            sock = super()._new_conn()
            exchange = _CURRENT.get()
            if exchange is not None and exchange.expired:  # it passed while the socket was being connected
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            return sock

        def connect(self) -> None:
            _register(self)
            super().connect()

        def request(self, *args: Any, **kwargs: Any) -> None:
            _register(self)
            super().request(*args, **kwargs)

    return Bounded
