"""An agent's ``mcp_servers`` over ``PUT /v1/agents/{id}`` (issue 20): what is saved, and every bad value a 400
that names the field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api

SERVER = {"name": "weather", "url": "https://weather.example/mcp"}


def _put(api: Api, *servers: dict[str, Any], **fields: Any) -> Any:
    return api.put("/v1/agents/master", {"label": "Master", "mcp_servers": list(servers), **fields})


def test_a_server_with_every_setting_is_saved_and_read_back(api: Api) -> None:
    server = {
        **SERVER,
        "auth": {
            "type": "oauth_client_credentials",
            "token_url": "https://auth.example/oauth2/token",
            "client_id": "mneme",
            "secret": "arn:aws:secretsmanager:us-east-1:123456789012:secret:mneme/mcp/alice/weather-AbCdEf",
            "scope": "tools.read",
        },
        "forward_user_id_header": "X-User-Id",
        "timeout_seconds": 5,
    }
    assert _put(api, server).status == 200
    saved = api.get("/v1/agents/master").body["mcp_servers"]
    assert saved == [{**server, "timeout_seconds": 5.0}]


def test_the_default_is_no_auth_and_ten_seconds(api: Api) -> None:
    assert _put(api, SERVER).status == 200
    (saved,) = api.get("/v1/agents/master").body["mcp_servers"]
    assert saved["auth"]["type"] == "none"
    assert (saved["timeout_seconds"], saved["forward_user_id_header"]) == (10.0, None)


@pytest.mark.parametrize(
    ("server", "field"),
    [
        ({**SERVER, "name": "Weather_Tools"}, "name"),
        ({**SERVER, "url": "ftp://weather.example/mcp"}, "url"),
        ({**SERVER, "url": "https://user:pw@weather.example/mcp"}, "url"),
        ({**SERVER, "auth": {"type": "bearer"}}, "auth"),
        ({**SERVER, "auth": {"type": "none", "secret": "x"}}, "auth"),
        ({**SERVER, "auth": {"type": "oauth_client_credentials", "secret": "x", "client_id": "c"}}, "auth"),
        ({**SERVER, "auth": {"type": "basic", "secret": "x"}}, "auth.type"),
        ({**SERVER, "forward_user_id_header": "Authorization"}, "forward_user_id_header"),
        ({**SERVER, "forward_user_id_header": "Bad Header"}, "forward_user_id_header"),
        ({**SERVER, "timeout_seconds": 120}, "timeout_seconds"),
        ({**SERVER, "password": "x"}, "password"),
    ],
    ids=[
        "name",
        "scheme",
        "credentials-in-url",
        "bearer-without-secret",
        "none-with-secret",
        "oauth-without-token-url",
        "unknown-auth",
        "reserved-header",
        "invalid-header",
        "timeout",
        "unknown-field",
    ],
)
def test_an_invalid_server_is_a_400_naming_the_field(api: Api, server: dict[str, Any], field: str) -> None:
    reply = _put(api, server)
    assert (reply.status, reply.body["field"]) == (400, f"mcp_servers.0.{field}"), reply.text


def test_two_servers_with_one_name_are_a_400(api: Api) -> None:
    reply = _put(api, SERVER, {**SERVER, "url": "https://other.example/mcp"})
    assert (reply.status, "unique" in reply.body["message"]) == (400, True)


def test_an_external_tool_in_a_servers_namespace_is_a_400(api: Api) -> None:
    tool = {
        "name": "weather__forecast",
        "description": "A Lambda tool.",
        "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:forecast",
    }
    reply = _put(api, SERVER, external_tools=[tool])
    assert (reply.status, "namespace of MCP server 'weather'" in reply.body["message"]) == (400, True)


def test_more_than_eight_servers_are_a_400(api: Api) -> None:
    servers = [{"name": f"s{n}", "url": f"https://s{n}.example/mcp"} for n in range(9)]
    assert _put(api, *servers).status == 400


@pytest.mark.parametrize(
    "url",
    [
        "http://weather.example/mcp",
        "https://127.0.0.1/mcp",
        "https://localhost:8443/mcp",
        "https://10.1.2.3/mcp",
        "https://127.1/mcp",
        "https://2852039166/mcp",
        "https://0x7f.0.0.1/mcp",
        "https://[::ffff:127.0.0.1]/mcp",
        "https://[64:ff9b::a9fe:a9fe]/mcp",
    ],
)
def test_where_only_public_https_servers_may_be_called_others_are_a_400(api: Api, url: str) -> None:
    reply = _put(api, {**SERVER, "url": url})
    assert (reply.status, reply.body["field"]) == (400, "mcp_servers.0.url")


def test_an_oauth_token_url_that_is_not_public_https_is_a_400(api: Api) -> None:
    auth = {"type": "oauth_client_credentials", "token_url": "http://auth.example/token", "client_id": "c"}
    reply = _put(api, {**SERVER, "auth": {**auth, "secret": "mneme/mcp/alice/x"}})
    assert (reply.status, reply.body["field"]) == (400, "mcp_servers.0.auth.token_url")
