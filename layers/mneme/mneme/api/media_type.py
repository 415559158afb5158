"""Request bodies are JSON objects (issue 33.6): a body sent without ``Content-Type: application/json`` (or a
``+json`` type, in any case) is a 415 that names the type it came with — before, ``curl -d`` (a form) had its fields
misread and answered "agent_id: Field required". A body that is JSON but not an object (every route's body is
one) is a 400: an array's first element was read as the body. What is accepted reaches the resolver declared
``application/json``, the one spelling Powertools' validation reads as JSON (``APPLICATION/JSON`` and
``application/merge-patch+json`` were 500s). A body sent with a ``Content-Encoding`` (gzip, br…) is a 415 naming it:
an HTTP API passes a compressed body on undecoded (only REST APIs decompress), so a gzip body was "not UTF-8
text" and a ``br`` label on a plain body was ignored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.errors import InvalidInput, UnsupportedMediaType


def content_type(headers: Mapping[str, Any] | None) -> str:
    """The request's media type, lowercased, without parameters ("" when there is none)."""
    for name, value in (headers or {}).items():
        if str(name).lower() == "content-type":
            return str(value).split(";", 1)[0].strip().lower()
    return ""


def is_json(media_type: str) -> bool:
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


def require_json_body(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with its body declared ``application/json``; UnsupportedMediaType for a non-empty body that is
    not declared JSON, InvalidInput for one that is not a JSON object."""
    if not event.get("body"):
        return event
    media_type = content_type(event.get("headers"))
    if is_json(media_type):
        if not str(event["body"]).lstrip().startswith("{"):
            raise InvalidInput("the body must be a JSON object", field="body")
        headers = {k: v for k, v in (event.get("headers") or {}).items() if str(k).lower() != "content-type"}
        return {**event, "headers": {**headers, "content-type": "application/json"}}
    sent = f"Content-Type {media_type!r}" if media_type else "no Content-Type"
    raise UnsupportedMediaType(
        f"the body must be JSON sent with Content-Type: application/json (this request has {sent}; "
        "with curl add -H 'Content-Type: application/json')",
        field="Content-Type",
    )


def refuse_content_encoding(event: dict[str, Any]) -> None:
    """UnsupportedMediaType for a body sent with a content coding other than ``identity``."""
    if not event.get("body"):
        return
    for name, value in (event.get("headers") or {}).items():
        if str(name).lower() != "content-encoding":
            continue
        codings = [c.strip().lower() for c in str(value).split(",") if c.strip()]
        if any(c != "identity" for c in codings):
            raise UnsupportedMediaType(
                f"the body must be sent uncompressed: Content-Encoding {str(value)[:40]!r} is not taken "
                "(send it without Content-Encoding)",
                field="Content-Encoding",
            )
