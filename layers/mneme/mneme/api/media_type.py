"""Request bodies are JSON (issue 33.6): a body sent without ``Content-Type: application/json`` (or a
``+json`` type) is a 415 that names the type it came with — before, ``curl -d`` (a form) had its fields
misread and answered "agent_id: Field required"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.errors import UnsupportedMediaType


def content_type(headers: Mapping[str, Any] | None) -> str:
    """The request's media type, lowercased, without parameters ("" when there is none)."""
    for name, value in (headers or {}).items():
        if str(name).lower() == "content-type":
            return str(value).split(";", 1)[0].strip().lower()
    return ""


def is_json(media_type: str) -> bool:
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


def require_json_body(event: Mapping[str, Any]) -> None:
    """Raise UnsupportedMediaType for a non-empty body that is not declared JSON."""
    if not event.get("body"):
        return
    media_type = content_type(event.get("headers"))
    if is_json(media_type):
        return
    sent = f"Content-Type {media_type!r}" if media_type else "no Content-Type"
    raise UnsupportedMediaType(
        f"the body must be JSON sent with Content-Type: application/json (this request has {sent}; "
        "with curl add -H 'Content-Type: application/json')",
        field="Content-Type",
    )
