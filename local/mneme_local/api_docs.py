"""``/docs``: the API's documentation page, served by the local server (issue 33.5).

Swagger UI (5.x: it reads OpenAPI 3.1) renders ``/v1/openapi.json`` (the document generated from the code). Its
files come from the PyPI package ``swagger-ui-py`` (pinned in requirements/dev.txt; only its static folder is
read, its Python code is never imported), served under ``/docs/`` — nothing is loaded
from another origin: no CDN, and Swagger UI's online validator is off (``validatorUrl: null``). The page is
public like the console; "Authorize" takes a token from ``make token`` for "Try it out".
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

PATH = "/docs"
PREFIX = "/docs/"
#: the package's files the page uses, and their types
FILES = {
    "swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "favicon-32x32.png": "image/png",
}
INSTALL = "swagger-ui-py==25.7.1"

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>mneme API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <main id="swagger-ui"></main>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
"""
INIT = """window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
"""
# Swagger UI sets style attributes; its scripts and styles are this origin's own.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def handles(path: str) -> bool:
    return path == PATH or path.startswith(PREFIX)


def _bundle_dir() -> Path | None:
    """The package's static folder (found, not imported), or None when it is not installed."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "static"
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def find(path: str) -> tuple[str, bytes] | None:
    """(content type, body) of a docs path, or None. Only the files listed are served."""
    if path in (PATH, PREFIX):
        return "text/html; charset=utf-8", PAGE.encode()
    name = path.removeprefix(PREFIX)
    if name == "init.js":
        return "text/javascript; charset=utf-8", INIT.encode()
    folder = _bundle_dir()
    if name not in FILES or folder is None:
        return None
    return FILES[name], (folder / name).read_bytes()


def respond(method: str, path: str, if_none_match: str | None) -> dict[str, Any]:
    """The proxy-style answer to a ``/docs`` request."""
    if method not in ("GET", "HEAD"):
        return _error(405, "method_not_allowed", "the documentation page is read-only", Allow="GET, HEAD")
    if _bundle_dir() is None:
        return _error(503, "docs_unavailable", f"the API docs need the package {INSTALL} (make setup installs it)")
    found = find(path)
    if found is None:
        return _error(404, "not_found", "no such documentation file")
    content_type, body = found
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {**HEADERS, "Content-Type": content_type, "ETag": etag}
    if if_none_match is not None and etag in {tag.strip() for tag in if_none_match.split(",")}:
        return {"statusCode": 304, "headers": headers, "body": None}
    return {"statusCode": 200, "headers": headers, "body": base64.b64encode(body).decode(), "isBase64Encoded": True}


def _error(status: int, code: str, message: str, **extra: str) -> dict[str, Any]:
    headers = {**HEADERS, "Content-Type": "application/json", "Cache-Control": "no-store", **extra}
    return {"statusCode": status, "headers": headers, "body": json.dumps({"error": code, "message": message})}
