"""The API's base URL given as the routes' prefix (``--url http://host:port/v1``, as the docs write each route) or
with a trailing slash reaches the same routes: the client's paths begin with ``/v1``, so the prefix was sent twice
(``/v1/v1/agents``) and every command answered "no such route"."""

from __future__ import annotations

import io
import json
import uuid

import pytest

from mneme_client import Client, cli, local_token
from tests.functional.local.support import LocalServer


@pytest.mark.parametrize("suffix", ["/v1", "/v1/", "/"])
def test_the_cli_takes_the_base_url_with_v1_or_a_trailing_slash(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    monkeypatch.setenv("MNEME_TOKEN", local_token(f"cli-{uuid.uuid4().hex[:8]}", folder=str(server.data_dir)))
    out = io.StringIO()
    assert cli.main(["--url", server.base + suffix, "--json", "agents", "list"], out=out) == 0
    assert json.loads(out.getvalue()) == []


def test_the_client_and_the_url_variable_take_it_too(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    token = local_token(f"cli-{uuid.uuid4().hex[:8]}", folder=str(server.data_dir))
    with Client(f"{server.base}/v1", token) as client:
        assert client.list_agents() == []
    monkeypatch.setenv("MNEME_URL", f"{server.base}/v1/")
    with Client(token=token) as client:
        assert client.list_agents() == []
