"""The HTTP API, its JWT authorizer (Cognito by default, or an existing issuer) and the run function's events."""

from __future__ import annotations

from typing import Any

from tests.support.sam_template import load_template, resources


def _run_events() -> dict[str, dict[str, Any]]:
    events: dict[str, dict[str, Any]] = resources()["RunFunction"]["Properties"]["Events"]
    return events


def test_the_api_authorizes_with_jwt_from_this_stacks_pool_or_the_given_issuer() -> None:
    auth = resources("AWS::Serverless::HttpApi")["HttpApi"]["Properties"]["Auth"]
    assert auth["DefaultAuthorizer"] == "JwtAuth"
    jwt = auth["Authorizers"]["JwtAuth"]
    assert jwt["IdentitySource"] == "$request.header.Authorization"
    assert jwt["JwtConfiguration"]["issuer"] == {
        "Fn::If": ["CreateUserPool", {"Fn::Sub": "https://${UserPool.ProviderURL}"}, {"Ref": "JwtIssuer"}]
    }
    assert jwt["JwtConfiguration"]["audience"] == {
        "Fn::If": ["CreateUserPool", [{"Ref": "UserPoolClient"}], {"Ref": "JwtAudience"}]
    }
    conditions = load_template()["Conditions"]
    assert conditions["CreateUserPool"] == {"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}


def test_the_cognito_pool_client_and_admin_group_exist_only_when_no_issuer_is_given() -> None:
    for name in ("UserPool", "UserPoolClient", "AdminGroup"):
        assert resources()[name]["Condition"] == "CreateUserPool", name
    # the admin group is a parameter: the pool's group and the functions' MNEME_ADMIN_GROUP are the same value
    assert resources()["AdminGroup"]["Properties"]["GroupName"] == {"Ref": "AdminGroupName"}
    variables = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["MNEME_ADMIN_GROUP"] == {"Ref": "AdminGroupName"}
    assert load_template()["Parameters"]["AdminGroupName"]["Default"] == "admin"
    client = resources()["UserPoolClient"]["Properties"]
    assert client["GenerateSecret"] is False
    assert "ALLOW_USER_PASSWORD_AUTH" not in client["ExplicitAuthFlows"]


def test_every_v1_route_goes_to_the_run_function_with_payload_format_2() -> None:
    http = {name: e["Properties"] for name, e in _run_events().items() if e["Type"] == "HttpApi"}
    routes = {(p["Method"], p["Path"]): p for p in http.values()}
    assert set(routes) == {("ANY", "/v1/{proxy+}"), ("GET", "/v1/health"), ("GET", "/v1/openapi.json")}
    for props in routes.values():
        assert props["ApiId"] == {"Ref": "HttpApi"}
        assert props["PayloadFormatVersion"] == "2.0"
        assert props["TimeoutInMillis"] <= 29_000  # HTTP APIs give up after 30 s
    # the proxy route keeps the default (JWT) authorizer; health and the OpenAPI document are public
    assert "Auth" not in routes[("ANY", "/v1/{proxy+}")]
    assert routes[("GET", "/v1/health")]["Auth"] == {"Authorizer": "NONE"}
    assert routes[("GET", "/v1/openapi.json")]["Auth"] == {"Authorizer": "NONE"}


def test_run_requested_events_on_the_default_bus_start_runs() -> None:
    (rule,) = [e["Properties"] for e in _run_events().values() if e["Type"] == "EventBridgeRule"]
    assert "EventBusName" not in rule  # the default bus
    assert rule["Pattern"] == {"source": [{"Ref": "RunRequestSource"}], "detail-type": ["mneme.RunRequested"]}
    assert rule["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": ["RunRequestDLQ", "Arn"]}}
    from mneme.runtime import RUN_REQUESTED

    assert rule["Pattern"]["detail-type"] == [RUN_REQUESTED]


def test_the_run_function_outlives_the_api_timeout_for_state_machine_steps() -> None:
    props = resources()["RunFunction"]["Properties"]
    settings_budget = 20  # MNEME_FAST_PATH_BUDGET_SECONDS default: the API hands off before 29 s
    assert settings_budget < 29 <= props["Timeout"] <= 900
    assert props["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": ["RunRequestDLQ", "Arn"]
    }
