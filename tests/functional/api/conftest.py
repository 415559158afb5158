"""HTTP functional tests: API Gateway HTTP API (payload v2.0) events driven through ``Runtime.handle``.

The caller is only ever taken from ``requestContext.authorizer.jwt.claims`` — the builder puts the claims
exactly where the JWT authorizer does. Deps are the in-memory world of ``tests.support.deps``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.models.agent import Agent
from mneme.runtime import Runtime
from tests.support.deps import World, make_world


def claims_for(user: str, *, admin: bool = False) -> dict[str, Any]:
    """The claims API Gateway forwards; ``cognito:groups`` arrives as a string like ``[admin users]``."""
    claims: dict[str, Any] = {"sub": user, "iss": "https://cognito-idp.us-east-1.amazonaws.com/pool", "token_use": "id"}
    if admin:
        claims["cognito:groups"] = "[admin]"
    return claims


def http_event(
    method: str,
    path: str,
    body: Any = None,
    *,
    user: str | None = "alice",
    admin: bool = False,
    claims: Mapping[str, Any] | None = None,
    query: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An HTTP API payload v2.0 event. ``body`` that is not a str is JSON-encoded; ``user=None`` sends no
    authorizer at all (an unauthenticated request). The route key and path parameters are those of the
    template's routes (``<METHOD> /v1/{proxy+}``, and the two public ``GET`` routes)."""
    public = path in ("/v1/health", "/v1/openapi.json")
    route_key = f"{method} {path}" if public else f"{method} /v1/{{proxy+}}"
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": urlencode(query or {}),
        "headers": {"content-type": "application/json", "authorization": "Bearer eyJ.test.jwt", **(headers or {})},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api1234567",
            "domainName": "api1234567.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "api1234567",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.10",
                "userAgent": "pytest",
            },
            "requestId": "req-1",
            "routeKey": route_key,
            "stage": "$default",
            "time": "30/Nov/2026:09:05:00 +0000",
            "timeEpoch": 1796029500000,
        },
        "isBase64Encoded": False,
    }
    if not public:
        event["pathParameters"] = {"proxy": path.removeprefix("/v1/")}
    if query:
        event["queryStringParameters"] = dict(query)
    if claims is None and user is not None:
        claims = claims_for(user, admin=admin)
    if claims is not None:
        event["requestContext"]["authorizer"] = {"jwt": {"claims": dict(claims), "scopes": None}}
    if body is not None:
        event["body"] = body if isinstance(body, str) else json.dumps(body)
    return event


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    text: str

    @property
    def body(self) -> Any:
        return json.loads(self.text) if self.text else None


class Api:
    """A tiny client: builds the event, runs it through the Runtime, parses the proxy response."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.runtime = Runtime(world.deps)

    def call(self, method: str, path: str, body: Any = None, **options: Any) -> Reply:
        response = self.runtime.handle(http_event(method, path, body, **options))
        headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
        return Reply(int(response["statusCode"]), headers, response.get("body") or "")

    def get(self, path: str, **options: Any) -> Reply:
        return self.call("GET", path, **options)

    def put(self, path: str, body: Any, **options: Any) -> Reply:
        return self.call("PUT", path, body, **options)

    def post(self, path: str, body: Any, **options: Any) -> Reply:
        return self.call("POST", path, body, **options)

    def delete(self, path: str, **options: Any) -> Reply:
        return self.call("DELETE", path, **options)


@pytest.fixture
def world() -> World:
    return make_world(OfflineModel())


@pytest.fixture
def api(world: World) -> Api:
    return Api(world)


def add_agent(world: World, agent_id: str = "master", owner: str = "alice", **fields: Any) -> Agent:
    agent = Agent(agent_id=agent_id, owner=owner, label=fields.pop("label", agent_id.title()), **fields)
    world.deps.config.put_agent(agent)
    return agent


def stored_runs(world: World) -> list[str]:
    """The run ids in the run store (the in-memory table behind ``ItemRunStore``)."""
    table = world.deps.runs._table  # type: ignore[attr-defined]
    return sorted(pk.removeprefix("RUN#") for pk, sk in table._items if pk.startswith("RUN#") and sk == "RUN")


def main_items(world: World) -> dict[Any, Any]:
    """A copy of every item of the main table (config, chats, runs, events, checkpoints)."""
    table = world.deps.runs._table  # type: ignore[attr-defined]
    return dict(table._items)


@pytest.fixture
def master(world: World) -> None:
    """A master agent that may search memory and delegate to a helper."""
    add_agent(world, "helper", label="Helper")
    add_agent(
        world,
        "master",
        label="Master",
        tools=["memory-search", "delegate-to-agent"],
        delegates=["helper"],
        memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"]},
    )
