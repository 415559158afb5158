"""The HTTP API, its JWT authorizer (Cognito by default, or an existing issuer) and the run function's events."""

from __future__ import annotations

from typing import Any

from tests.support.sam_template import load_template, resources, sub_text


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
        "Fn::If": [
            "CreateUserPool",
            [{"Ref": "UserPoolClient"}, {"Ref": "ConsoleUserPoolClient"}],
            {"Ref": "JwtAudience"},
        ]
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
    methods = {(method, "/v1/{proxy+}") for method in ("GET", "POST", "PUT", "PATCH", "DELETE")}
    mcp = {(method, "/mcp") for method in ("POST", "GET", "DELETE")}
    assert set(routes) == methods | mcp | {("GET", "/v1/health"), ("GET", "/v1/openapi.json")}
    for props in routes.values():
        assert props["ApiId"] == {"Ref": "HttpApi"}
        assert props["PayloadFormatVersion"] == "2.0"
        assert props["TimeoutInMillis"] <= 29_000  # HTTP APIs give up after 30 s
    # the proxy routes keep the default (JWT) authorizer; health and the OpenAPI document are public
    assert all("Auth" not in routes[route] for route in methods)
    assert routes[("GET", "/v1/health")]["Auth"] == {"Authorizer": "NONE"}
    assert routes[("GET", "/v1/openapi.json")]["Auth"] == {"Authorizer": "NONE"}


def test_mcp_routes_go_to_the_run_function_behind_the_jwt_authorizer() -> None:
    from mneme.api.app import MCP_PATH

    events = [e["Properties"] for e in _run_events().values() if e["Type"] == "HttpApi"]
    mcp = {p["Method"]: p for p in events if p["Path"] == MCP_PATH}
    assert set(mcp) == {"POST", "GET", "DELETE"}  # one route per method; GET and DELETE answer 405
    for props in mcp.values():
        assert (props["ApiId"], props["PayloadFormatVersion"]) == ({"Ref": "HttpApi"}, "2.0")
        assert "Auth" not in props  # the default authorizer: the same JWT as the HTTP API
        assert props["TimeoutInMillis"] <= 29_000


def test_the_mcp_secrets_prefix_is_the_one_the_policy_allows() -> None:
    props = resources()["RunFunction"]["Properties"]
    prefix = props["Environment"]["Variables"]["MNEME_MCP_SECRET_PREFIX"]
    statements = [s for p in props["Policies"] if "Statement" in p for s in p["Statement"] if isinstance(s, dict)]
    (secrets,) = [s for s in statements if s.get("Sid") == "ReadMcpSecrets"]
    assert prefix == {"Fn::Sub": "${AWS::StackName}/mcp/"}
    assert secrets["Resource"]["Fn::Sub"].endswith(":secret:" + prefix["Fn::Sub"] + "*")
    assert secrets["Action"] == "secretsmanager:GetSecretValue"


def test_run_requested_events_come_from_the_stacks_own_bus() -> None:
    (rule,) = [e["Properties"] for e in _run_events().values() if e["Type"] == "EventBridgeRule"]
    assert rule["EventBusName"] == {"Ref": "RunRequestBus"}  # never the default bus: events name their user
    assert rule["Pattern"] == {"source": [{"Ref": "RunRequestSource"}], "detail-type": ["mneme.RunRequested"]}
    assert rule["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": ["RunRequestDLQ", "Arn"]}}
    from mneme.runtime import RUN_REQUESTED

    assert rule["Pattern"]["detail-type"] == [RUN_REQUESTED]


def _bus_policy(branch: int) -> list[dict[str, Any]]:
    policy = resources("AWS::Events::EventBus")["RunRequestBus"]["Properties"]["Policy"]["Fn::If"]
    assert policy[0] == "HasRunRequestPublishers"
    statements: list[dict[str, Any]] = policy[branch]["Statement"]
    bus_arn = "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/${AWS::StackName}-run-requests"
    assert all(sub_text(s["Resource"]) == bus_arn for s in statements)
    assert all(s["Action"] == "events:PutEvents" for s in statements)
    return statements


def test_named_publishers_are_the_only_principals_that_may_put_events() -> None:
    allow, deny = _bus_policy(1)
    assert (allow["Effect"], allow["Principal"]) == ("Allow", "*")
    assert allow["Condition"] == {"ArnLike": {"aws:PrincipalArn": {"Ref": "RunRequestPublishers"}}}
    assert (deny["Effect"], deny["Principal"]) == ("Deny", "*")
    assert deny["Condition"] == {"ArnNotLike": {"aws:PrincipalArn": {"Ref": "RunRequestPublishers"}}}


def test_without_named_publishers_only_this_accounts_principals_may_put_events() -> None:
    (only,) = _bus_policy(2)
    assert only["Effect"] == "Allow"
    assert sub_text(only["Principal"]["AWS"]) == "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"
    bus = resources("AWS::Events::EventBus")["RunRequestBus"]["Properties"]
    assert sub_text(bus["Name"]) == "${AWS::StackName}-run-requests"


def test_a_failed_event_invocation_ends_in_the_dead_letter_queue_after_one_retry() -> None:
    config = resources()["RunFunction"]["Properties"]["EventInvokeConfig"]
    assert config["MaximumRetryAttempts"] == 1
    assert config["DestinationConfig"]["OnFailure"] == {
        "Type": "SQS",
        "Destination": {"Fn::GetAtt": ["RunRequestDLQ", "Arn"]},
    }


def test_the_run_function_outlives_the_api_timeout_for_state_machine_steps() -> None:
    props = resources()["RunFunction"]["Properties"]
    settings_budget = 20  # MNEME_FAST_PATH_BUDGET_SECONDS default: the API hands off before 29 s
    assert settings_budget < 29 <= props["Timeout"] <= 900
    assert props["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": ["RunRequestDLQ", "Arn"]
    }
