"""The run function's own 401 (no verified claims reached it) carries the ``WWW-Authenticate`` challenge too,
on the API's routes and on ``/mcp`` (issue 33.6)."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/agents"), ("POST", "/mcp")])
def test_a_request_without_claims_is_challenged(api: Api, method: str, path: str) -> None:
    reply = api.call(
        method, path, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"} if method == "POST" else None, user=None
    )
    assert (reply.status, reply.headers.get("www-authenticate")) == (401, 'Bearer realm="mneme"')


def test_a_public_route_needs_no_challenge(api: Api) -> None:
    reply = api.get("/v1/health", user=None)
    assert (reply.status, reply.headers.get("www-authenticate")) == (200, None)
