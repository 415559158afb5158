"""A botocore raw HTTP body made of given bytes: what a stubbed ``before-send`` handler answers a real client with."""

from __future__ import annotations

from typing import Any


class RawBody:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, *_: Any, **__: Any) -> Any:
        yield self._body

    def read(self, *_: Any, **__: Any) -> bytes:
        body, self._body = self._body, b""
        return body

    def close(self) -> None:
        return None
