"""The local server serves the web console's static files: types, caching, no token, nothing else.

Over real HTTP against ``python -m mneme_local.server`` (raw request lines, so no client normalizes a
path), plus the path rules of :mod:`mneme_local.console_assets` on a scratch folder.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest

from mneme_local import console_assets
from tests.functional.local.support import LocalServer

REPO = Path(__file__).resolve().parents[3]


def raw_get(server: LocalServer, path: str, method: str = "GET", headers: dict[str, str] | None = None):
    """One request with the path exactly as given (http.client sends it unchanged)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


# ------------------------------------------------------------------------------------------- over HTTP
@pytest.mark.parametrize(
    ("path", "content_type", "file"),
    [
        ("/", "text/html; charset=utf-8", "index.html"),
        ("/console/", "text/html; charset=utf-8", "index.html"),
        ("/console/console.css", "text/css; charset=utf-8", "console.css"),
        ("/console/js/app.js", "text/javascript; charset=utf-8", "js/app.js"),
        ("/console/js/views/trace.js", "text/javascript; charset=utf-8", "js/views/trace.js"),
        ("/console/favicon.svg", "image/svg+xml", "favicon.svg"),
    ],
)
def test_console_files_are_served_with_their_type_and_no_token(
    server: LocalServer, path: str, content_type: str, file: str
) -> None:
    status, headers, body = raw_get(server, path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert body == (console_assets.CONSOLE_DIR / file).read_bytes()


def test_the_page_is_revalidated_and_carries_security_headers(server: LocalServer) -> None:
    status, headers, _ = raw_get(server, "/")
    assert status == 200 and headers["cache-control"] == "no-cache" and headers["etag"].startswith('"')
    assert headers["x-content-type-options"] == "nosniff"
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_an_unchanged_file_answers_304_without_a_body(server: LocalServer) -> None:
    _, headers, _ = raw_get(server, "/console/js/api.js")
    status, again, body = raw_get(server, "/console/js/api.js", headers={"If-None-Match": headers["etag"]})
    assert (status, body) == (304, b"") and again["etag"] == headers["etag"]


def test_another_etag_gets_the_whole_file(server: LocalServer) -> None:
    status, _, body = raw_get(server, "/console/js/api.js", headers={"If-None-Match": '"stale"'})
    assert status == 200 and body == (console_assets.CONSOLE_DIR / "js/api.js").read_bytes()


def test_head_answers_the_headers_of_get_without_the_body(server: LocalServer) -> None:
    _, get_headers, body = raw_get(server, "/")
    status, headers, head_body = raw_get(server, "/", method="HEAD")
    assert status == 200 and head_body == b""
    assert headers["content-length"] == str(len(body)) == get_headers["content-length"]


def test_the_local_config_says_local_mode_on_the_same_origin(server: LocalServer) -> None:
    status, headers, body = raw_get(server, "/console/config.json")
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"mode": "local", "api_base_url": ""}


@pytest.mark.parametrize(
    "path",
    [
        "/console/nope.js",
        "/console/js/",
        "/console/js",
        "/console/js/nope/app.js",
        "/console/.gitignore",
    ],
)
def test_unknown_console_paths_are_a_json_404(server: LocalServer, path: str) -> None:
    status, headers, body = raw_get(server, path)
    assert status == 404 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"] == "not_found"


@pytest.mark.parametrize(
    "path",
    [
        "/console/../Makefile",
        "/console/js/../../Makefile",
        "/console/%2e%2e/Makefile",
        "/console/%2E%2E/template.yaml",
        "/console/js/%2e%2e/%2e%2e/Makefile",
        "/console/..%2fMakefile",
        "/console/%2e%2e%2fMakefile",
        "/console/..%5cMakefile",
        "/console/%2e%2e%5c%2e%2e%5cMakefile",
        "/console/js/%00app.js",
        "/console//etc/passwd",
        "/console/%2fetc%2fpasswd",
    ],
)
def test_no_path_reaches_a_file_outside_the_console_folder(server: LocalServer, path: str) -> None:
    status, _, body = raw_get(server, path)
    assert status == 404
    assert b"SHELL :=" not in body and b"AWSTemplateFormatVersion" not in body and b"root:" not in body


def test_the_console_files_are_read_only(server: LocalServer) -> None:
    status, headers, _ = raw_get(server, "/console/index.html", method="POST", headers={"Content-Length": "0"})
    assert status == 405 and headers["allow"] == "GET, HEAD"


def test_the_api_still_needs_a_token(server: LocalServer) -> None:
    assert raw_get(server, "/v1/agents")[0] == 401
    assert raw_get(server, "/index.html")[0] == 401  # only / and /console/… are the console's


# --------------------------------------------------------------------------------- the path rules alone
@pytest.fixture
def root(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "js").mkdir(parents=True)
    (site / "index.html").write_text("<!doctype html>")
    (site / "js" / "app.js").write_text("export {};")
    (site / "deploy.py").write_text("print('not an asset')")
    (tmp_path / "secret.js").write_text("outside")
    (site / "js" / "link.js").symlink_to(tmp_path / "secret.js")
    return site


def test_only_asset_types_are_served(root: Path) -> None:
    assert console_assets.find("/console/js/app.js", root) is not None
    assert console_assets.find("/console/deploy.py", root) is None


def test_a_symlink_out_of_the_folder_is_not_followed(root: Path) -> None:
    assert console_assets.find("/console/js/link.js", root) is None


def test_the_etag_changes_with_the_content(root: Path) -> None:
    before = console_assets.find("/console/js/app.js", root)
    (root / "js" / "app.js").write_text("export const changed = 1;")
    after = console_assets.find("/console/js/app.js", root)
    assert before is not None and after is not None and before.etag != after.etag


def test_the_repository_console_has_no_config_file_to_go_stale() -> None:
    # locally the server answers config.json; on AWS `make deploy-console` writes it from the stack outputs
    assert not (REPO / "console" / "config.json").exists()
