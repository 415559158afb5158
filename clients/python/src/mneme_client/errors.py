"""The client's errors: one base class, and the API's JSON error (``{"error", "message", "field"?}``)."""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """Anything the client refuses or cannot do (no token, a stream that never ends, a bad answer)."""


class ApiError(ClientError):
    """The API answered an error status; ``code`` and ``message`` are its JSON error's fields."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field: {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field

    @classmethod
    def from_answer(cls, status: int, body: Any, text: str) -> ApiError:
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            field = body.get("field")
            return cls(status, body["error"], str(body.get("message", "")), field if isinstance(field, str) else None)
        return cls(status, "http_error", text[:500] or f"HTTP {status}")
