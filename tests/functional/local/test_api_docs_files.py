"""``/docs`` of the local server (issue 33.5): the page, its own init script and the listed Swagger UI files
from the installed package — nothing else, read-only, with a policy that allows no other origin."""

from __future__ import annotations

import base64

from mneme_local import api_docs


def _body(answer: dict[str, object]) -> str:
    return base64.b64decode(str(answer["body"])).decode()


def test_the_page_loads_swagger_ui_from_this_origin_and_points_it_at_the_openapi_document() -> None:
    page = api_docs.respond("GET", "/docs", None)
    assert page["statusCode"] == 200
    assert '<script src="/docs/swagger-ui-bundle.js"></script>' in _body(page)
    init = _body(api_docs.respond("GET", "/docs/init.js", None))
    assert 'url: "/v1/openapi.json"' in init and "validatorUrl: null" in init


def test_the_policy_allows_no_other_origin() -> None:
    policy = api_docs.respond("GET", "/docs", None)["headers"]["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self';" in policy and "http" not in policy


def test_a_listed_file_comes_from_the_package() -> None:
    answer = api_docs.respond("GET", "/docs/swagger-ui-bundle.js", None)
    assert answer["statusCode"] == 200
    assert answer["headers"]["Content-Type"].startswith("text/javascript")


def test_other_paths_under_docs_are_not_served() -> None:
    for path in ("/docs/swagger-editor.js", "/docs/../pyproject.toml", "/docs/%2e%2e/README.md", "/docs/index.html"):
        assert api_docs.respond("GET", path, None)["statusCode"] == 404, path


def test_the_page_is_read_only() -> None:
    assert api_docs.respond("POST", "/docs", None)["statusCode"] == 405


def test_an_unchanged_file_is_revalidated_without_a_body() -> None:
    etag = api_docs.respond("GET", "/docs/swagger-ui.css", None)["headers"]["ETag"]
    assert api_docs.respond("GET", "/docs/swagger-ui.css", etag)["statusCode"] == 304
