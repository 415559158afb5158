"""The local HTTP server's wire: request bodies read the way API Gateway bounds them (a Content-Length body or a
chunked one, RFC 9112 §7.1, each capped at the HTTP API's payload limit; a malformed body is a ValueError, a 400;
a request with two Content-Length headers, or one and a Transfer-Encoding, or a Transfer-Encoding other than
``chunked``, a 400 too: a proxy and this server could read its end differently, RFC 9112 §6.1 and §6.3), and a
Lambda proxy result written as the HTTP response API Gateway would send. A request must arrive in time: once its
line is read, its headers and body have ``server.read_timeout`` seconds in all (a client that sends less than its
Content-Length, or drips bytes, is answered 408 or dropped, never holding a thread for ever), and a silent
keep-alive connection is closed after as long.
"""

from __future__ import annotations

import base64
import io
import json
import socket
import time
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from email.message import Message
    from io import BufferedIOBase

MAX_REQUEST_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit
MAX_CHUNK_LINE = 1024  # a chunk-size line (size and extensions) or trailer line longer than this is malformed
MAX_TRAILERS = 32
REQUEST_READ_SECONDS = 30.0  # the time a request's headers and body have to arrive (and a silent connection lives)
ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"


def chunk_size(line: bytes) -> int:
    digits = line.split(b";", 1)[0].strip()
    if not digits or len(digits) > 16 or any(c not in b"0123456789abcdefABCDEF" for c in digits):
        raise ValueError(f"invalid chunk size {digits[:20]!r}")
    return int(digits, 16)


TOO_LARGE_BODY = json.dumps({"message": "Internal Server Error"})  # what an HTTP API answers for a refused response


def lambda_response_bytes(result: Any) -> int:
    """The size of the response document the Lambda runtime would return to API Gateway."""
    try:
        return len(json.dumps(result, default=str).encode("utf-8"))
    except (TypeError, ValueError):
        return 0


def error_result(status: int, code: str, message: str) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({"error": code, "message": message}),
    }


class DeadlineReader(io.RawIOBase):
    """The connection's reads, each waiting at most ``idle`` seconds and, while ``deadline`` is set, never past it."""

    def __init__(self, raw: io.RawIOBase, sock: socket.socket, idle: float) -> None:
        super().__init__()
        self.raw, self.sock, self.idle = raw, sock, idle
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request did not arrive in time")
            self.sock.settimeout(min(self.idle, left))
        return self.raw.readinto(buffer)

    def settle(self) -> None:
        """The request is read: no deadline until the next one, the socket back to the idle timeout."""
        self.deadline = None
        self.sock.settimeout(self.idle)

    def close(self) -> None:
        self.raw.close()
        super().close()


class HandlerIO:
    """Needs the request handler's request, streams and response calls (declared here for the type checker only)."""

    if TYPE_CHECKING:
        headers: Message
        rfile: BufferedIOBase
        wfile: BufferedIOBase
        command: str

        def send_response(self, code: int, message: str | None = None) -> None: ...

        def send_header(self, keyword: str, value: str) -> None: ...

        def end_headers(self) -> None: ...

        close_connection: bool
        connection: socket.socket
        server: Any
        timeout: float | None
        rbufsize: int

    def setup(self) -> None:
        self.timeout = float(self.server.read_timeout)
        super().setup()  # type: ignore[misc]
        plain = self.rfile
        self._reader = DeadlineReader(plain.raw, self.connection, self.timeout)  # type: ignore[attr-defined]
        self.rfile = io.BufferedReader(self._reader, io.DEFAULT_BUFFER_SIZE)
        plain.detach()

    def parse_request(self) -> bool:
        """The request line is in: its headers and body have ``read_timeout`` seconds from now."""
        self._reader.deadline = time.monotonic() + self._reader.idle
        parsed: bool = super().parse_request()  # type: ignore[misc]
        return parsed

    def _body_or_refusal(self) -> tuple[bytes, dict[str, Any] | None]:
        """The request's body, or the answer refusing it (the connection then closes: its end is unknown)."""
        try:
            body = self._read_body()
        except ValueError as exc:
            self.close_connection = True
            return b"", error_result(400, "invalid_input", f"the request body could not be read: {exc}")
        except TimeoutError:
            self.close_connection = True
            return b"", error_result(408, "request_timeout", "the request was not sent in time")
        if body is None:
            self.close_connection = True
            return b"", error_result(413, "payload_too_large", f"the request is larger than {MAX_REQUEST_BYTES} bytes")
        self._reader.settle()
        return body, None

    def _read_body(self) -> bytes | None:
        """The body, or None when it is over the cap; ValueError when it is malformed (a 400)."""
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) > 1 or (lengths and self.headers.get("Transfer-Encoding") is not None):
            raise ValueError("a request has one Content-Length header, or a Transfer-Encoding, not both or two")
        coding = self.headers.get("Transfer-Encoding")
        if coding is not None:  # only chunked: with another coding the body's end is unknown (RFC 9112 6.1)
            if coding.strip().lower() != "chunked" or len(self.headers.get_all("Transfer-Encoding") or []) > 1:
                raise ValueError(
                    f"Transfer-Encoding {coding[:40]!r} is not taken: send the body chunked or with a Content-Length"
                )
            return self._read_chunked()
        text = (self.headers.get("Content-Length") or "0").strip()
        if not text.isdigit():
            raise ValueError(f"invalid Content-Length {text[:40]!r}")
        length = int(text)
        if length > MAX_REQUEST_BYTES:
            return None
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self) -> bytes | None:
        """A chunked body (RFC 9112 §7.1): each size line bounded and strictly hex, each chunk read exactly,
        the total capped like a Content-Length body; trailers are read and dropped."""
        chunks: list[bytes] = []
        total = 0
        while True:
            size = chunk_size(self._line())
            if size == 0:
                for _ in range(MAX_TRAILERS + 1):
                    if self._line().strip() == b"":
                        return b"".join(chunks)
                raise ValueError("too many trailer lines")
            total += size
            if total > MAX_REQUEST_BYTES:
                return None
            data = self.rfile.read(size)
            if len(data) != size or self._line().strip() != b"":
                raise ValueError("a chunk is shorter than its size, or not followed by CRLF")
            chunks.append(data)

    def _line(self) -> bytes:
        line = self.rfile.readline(MAX_CHUNK_LINE + 1)
        if len(line) > MAX_CHUNK_LINE or not line.endswith(b"\n"):
            raise ValueError("a chunk line is too long or the body ended early")
        return line

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The server's own refusals (an unknown method, a malformed request line or header) as JSON like every
        other answer, not ``http.server``'s HTML page; an unknown method is a 405 naming the methods there are."""
        del explain
        self.close_connection = True
        command = getattr(self, "command", None) or ""
        if code == HTTPStatus.NOT_IMPLEMENTED:
            result = error_result(405, "method_not_allowed", f"{command[:20]!r} is not a method of this API")
            result["headers"]["Allow"] = ALLOWED_METHODS
        else:
            try:
                phrase = HTTPStatus(code).phrase
            except ValueError:
                phrase = "Error"
            result = error_result(code, phrase.lower().replace(" ", "_"), message or phrase)
        self._write(result)

    def _write(self, result: Any) -> int:
        if not isinstance(result, dict) or "statusCode" not in result:  # payload 2.0: a bare value is JSON 200
            result = {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps(result)}
        status = int(result.get("statusCode") or 200)
        raw = result.get("body")
        if raw is None:
            payload = b""
        elif result.get("isBase64Encoded"):
            payload = base64.b64decode(raw)
        else:
            payload = (raw if isinstance(raw, str) else json.dumps(raw)).encode("utf-8")
        self.send_response(status)
        headers = {str(k): str(v) for k, v in (result.get("headers") or {}).items()}
        for name, values in (result.get("multiValueHeaders") or {}).items():
            for value in values:
                self.send_header(str(name), str(value))
        for name, value in headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        for cookie in result.get("cookies") or []:
            self.send_header("Set-Cookie", str(cookie))
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
        return status


def unauthorized(exc: Exception, authorization: str | None) -> dict[str, Any]:
    """A 401 with its ``WWW-Authenticate`` challenge: no token, or which token problem (mneme.api.challenge)."""
    from mneme.api.challenge import bearer_challenge

    answer = error_result(401, "unauthorized", str(exc))
    answer["headers"]["WWW-Authenticate"] = bearer_challenge(None if not authorization else str(exc))
    return answer
