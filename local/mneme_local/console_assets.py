"""The web console's static files, served by the local server without a token (docs/console.md).

``/`` answers ``console/index.html`` and ``/console/<path>`` the files under ``console/`` (only the
asset types below; no dotfiles, no directories, nothing outside the folder however the path is spelled).
``/console/config.json`` is answered, not read: locally the console signs in with a dev token and calls
the API on the same origin. Every asset is revalidated (``Cache-Control: no-cache`` + a strong ``ETag``,
``304`` on ``If-None-Match``), so an edited file is seen on the next load and an unchanged one costs no
body. The page is public; every API call it makes carries the Bearer token.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from mneme.records import Record

CONSOLE_DIR = Path(__file__).resolve().parents[2] / "console"
PREFIX = "/console/"
CONFIG_PATH = "/console/config.json"
LOCAL_CONFIG = {"mode": "local", "api_base_url": ""}
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
}
# The console needs nothing from another origin locally: no inline script or style, no frames.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
READ_METHODS = ("GET", "HEAD")


class Asset(Record):
    content_type: str
    body: bytes

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:32] + '"'


def handles(path: str) -> bool:
    """Is this (raw, still percent-encoded) request path the console's rather than the API's?"""
    return path == "/" or path == PREFIX.rstrip("/") or path.startswith(PREFIX)


def find(path: str, root: Path = CONSOLE_DIR) -> Asset | None:
    """The asset for a request path, or None (unknown, not an asset type, or outside the folder)."""
    if path in ("/", PREFIX.rstrip("/"), PREFIX):
        path = PREFIX + "index.html"
    if path == CONFIG_PATH:
        return Asset("application/json", json.dumps(LOCAL_CONFIG).encode())
    relative = unquote(path.removeprefix(PREFIX))
    parts = relative.split("/")
    if "\\" in relative or "\x00" in relative or any(not part or part.startswith(".") for part in parts):
        return None  # "..", ".", dotfiles, empty segments, Windows separators, NUL
    file = root.joinpath(*parts).resolve()
    base = root.resolve()
    if not file.is_relative_to(base) or not file.is_file():
        return None
    content_type = CONTENT_TYPES.get(file.suffix.lower())
    if content_type is None:
        return None
    return Asset(content_type, file.read_bytes())


def respond(method: str, path: str, if_none_match: str | None, root: Path = CONSOLE_DIR) -> dict[str, Any]:
    """The proxy-style result (as the run function answers) for a console request."""
    if method not in READ_METHODS:
        return _json(405, "method_not_allowed", "the console's files are read-only", Allow=", ".join(READ_METHODS))
    asset = find(path, root)
    if asset is None:
        return _json(404, "not_found", "no such console file")
    headers = {**SECURITY_HEADERS, "Content-Type": asset.content_type, "Cache-Control": "no-cache", "ETag": asset.etag}
    if if_none_match is not None and asset.etag in {tag.strip() for tag in if_none_match.split(",")}:
        return {"statusCode": 304, "headers": headers, "body": None}
    return {
        "statusCode": 200,
        "headers": headers,
        "body": base64.b64encode(asset.body).decode(),
        "isBase64Encoded": True,
    }


def _json(status: int, code: str, message: str, **headers: str) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {**SECURITY_HEADERS, "Content-Type": "application/json", "Cache-Control": "no-store", **headers},
        "body": json.dumps({"error": code, "message": message}),
    }
