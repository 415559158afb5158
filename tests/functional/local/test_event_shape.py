"""The local server hands the run function the API Gateway HTTP API v2.0 event the Lambda receives."""

from __future__ import annotations

import base64

import jwt

from mneme.api.auth import caller_from_event
from mneme_local.auth import claims_for_event
from mneme_local.gateway_event import build_event


def test_the_event_has_the_http_api_v2_shape() -> None:
    event = build_event(
        "post",
        "/v1/runs?a=1&b=2&a=3",
        [("Content-Type", "application/json"), ("X-Trace", "1"), ("x-trace", "2"), ("Cookie", "k=v; z=w")],
        b'{"input": "hi"}',
        claims={"sub": "alice", "cognito:groups": ["admin", "users"], "exp": 123},
        source_ip="127.0.0.1",
    )
    assert event["version"] == "2.0" and event["routeKey"] == "$default"
    assert (event["rawPath"], event["rawQueryString"]) == ("/v1/runs", "a=1&b=2&a=3")
    assert event["queryStringParameters"] == {"a": "1,3", "b": "2"}
    assert event["headers"] == {"content-type": "application/json", "x-trace": "1,2"}
    assert event["cookies"] == ["k=v", "z=w"]
    assert event["requestContext"]["http"]["method"] == "POST"
    assert event["requestContext"]["http"]["path"] == "/v1/runs"
    assert event["requestContext"]["authorizer"]["jwt"]["claims"] == {
        "sub": "alice",
        "cognito:groups": "[admin users]",
        "exp": "123",
    }
    assert (event["body"], event["isBase64Encoded"]) == ('{"input": "hi"}', False)
    # the rendered "[admin users]" could hide a group name with a space: the header's token settles it (31.11)
    token = jwt.encode({"sub": "alice", "cognito:groups": ["admin", "users"], "exp": 123}, "k" * 32, algorithm="HS256")
    caller = caller_from_event({**event, "headers": {**event["headers"], "authorization": f"Bearer {token}"}})
    assert (caller.user_id, caller.is_admin) == ("alice", True)
    assert caller_from_event(event).is_admin is False  # no token to settle it: no admin


def test_binary_bodies_are_base64_and_public_routes_carry_no_claims() -> None:
    event = build_event("PUT", "/v1/health", [("Content-Type", "application/octet-stream")], b"\xff\x00", claims=None)
    assert event["isBase64Encoded"] is True and base64.b64decode(event["body"]) == b"\xff\x00"
    assert "authorizer" not in event["requestContext"] and "queryStringParameters" not in event


def test_claims_are_strings_like_api_gateway_renders_them() -> None:
    assert claims_for_event({"a": True, "b": {"c": 1}, "d": []}) == {"a": "true", "b": '{"c":1}', "d": "[]"}
