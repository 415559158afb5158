"""Live runs on AWS (issue 15.2): the WebSocket API, its routes, its $connect authorizer, and the least
privilege of the pushes (``execute-api:ManageConnections`` on this API's connections only)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.support.sam_template import as_list, load_template, policy_statements, references, resources, sub_text

LAMBDA_URI = "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${%s.Arn}/invocations"
CONNECTIONS = "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${LiveApi}/live/POST/@connections/*"


def _props(name: str) -> dict[str, Any]:
    properties: dict[str, Any] = resources()[name]["Properties"]
    return properties


def _routes() -> dict[str, dict[str, Any]]:
    return {r["Properties"]["RouteKey"]: r["Properties"] for r in resources("AWS::ApiGatewayV2::Route").values()}


def test_the_live_api_is_a_websocket_api_that_routes_on_the_message_action() -> None:
    api = _props("LiveApi")
    assert api["ProtocolType"] == "WEBSOCKET"
    assert api["RouteSelectionExpression"] == "$request.body.action"
    assert sub_text(api["Name"]) == "${AWS::StackName}-live"


def test_it_has_exactly_the_connect_disconnect_subscribe_unsubscribe_and_default_routes() -> None:
    routes = _routes()
    assert set(routes) == {"$connect", "$disconnect", "subscribe", "unsubscribe", "$default"}
    assert all(route["ApiId"] == {"Ref": "LiveApi"} for route in routes.values())
    assert all(sub_text(route["Target"]) == "integrations/${LiveIntegration}" for route in routes.values())


def test_every_route_goes_to_the_run_function() -> None:
    integration = _props("LiveIntegration")
    assert integration["IntegrationType"] == "AWS_PROXY"
    assert sub_text(integration["IntegrationUri"]) == LAMBDA_URI % "RunFunction"


def test_only_connect_is_authorized_and_by_the_jwt_authorizer() -> None:
    routes = _routes()
    assert routes["$connect"]["AuthorizationType"] == "CUSTOM"
    assert routes["$connect"]["AuthorizerId"] == {"Ref": "LiveAuthorizer"}
    # WebSocket APIs authorize only $connect: later messages are tied to the connection's stored user
    assert all("AuthorizerId" not in route for key, route in routes.items() if key != "$connect")


def test_the_authorizer_is_a_request_authorizer_reading_the_token_query_parameter() -> None:
    authorizer = _props("LiveAuthorizer")
    assert authorizer["AuthorizerType"] == "REQUEST"
    assert authorizer["IdentitySource"] == ["route.request.querystring.token"]
    assert sub_text(authorizer["AuthorizerUri"]) == LAMBDA_URI % "LiveAuthFunction"


def test_the_authorizer_checks_the_same_issuer_and_audience_as_the_http_api() -> None:
    jwt = resources("AWS::Serverless::HttpApi")["HttpApi"]["Properties"]["Auth"]["Authorizers"]["JwtAuth"]
    env = _props("LiveAuthFunction")["Environment"]["Variables"]
    assert env["MNEME_JWT_ISSUER"] == jwt["JwtConfiguration"]["issuer"]
    http_audience = jwt["JwtConfiguration"]["audience"]["Fn::If"]
    ws_audience = env["MNEME_JWT_AUDIENCE"]["Fn::If"]
    assert ws_audience[0] == http_audience[0] == "CreateUserPool"
    assert ws_audience[1] == {"Fn::Join": [",", http_audience[1]]}  # this stack's app clients, the console's too
    assert ws_audience[2] == {"Fn::Join": [",", http_audience[2]]}  # the given audiences, comma-joined


def test_the_authorizer_function_has_no_permission_beyond_its_logs() -> None:
    assert _props("LiveAuthFunction").get("Policies") in (None, [])
    assert sub_text(_props("LiveAuthFunctionLogs")["LogGroupName"]) == "/aws/lambda/${AWS::StackName}-live-auth"


def test_api_gateway_may_invoke_the_two_functions_from_this_api_only() -> None:
    permissions = {p["Properties"]["FunctionName"]["Fn::GetAtt"][0]: p["Properties"] for p in _permissions()}
    assert permissions["RunFunction"]["Principal"] == "apigateway.amazonaws.com"
    assert sub_text(permissions["RunFunction"]["SourceArn"]).endswith(":${LiveApi}/live/*")
    assert sub_text(permissions["LiveAuthFunction"]["SourceArn"]).endswith(":${LiveApi}/authorizers/${LiveAuthorizer}")


def _permissions() -> list[dict[str, Any]]:
    return [p for p in resources("AWS::Lambda::Permission").values() if "LiveApi" in references(p["Properties"])]


def test_the_run_function_may_push_only_to_this_apis_connections() -> None:
    grants = {
        owner: statement
        for owner in resources()
        if resources()[owner]["Type"] in ("AWS::Serverless::Function", "AWS::Serverless::StateMachine")
        for statement in policy_statements(owner)
        if any(action.startswith("execute-api:") for action in as_list(statement["Action"]))
    }
    assert list(grants) == ["RunFunction"]
    statement = grants["RunFunction"]
    assert as_list(statement["Action"]) == ["execute-api:ManageConnections"]
    assert [sub_text(r) for r in as_list(statement["Resource"])] == [CONNECTIONS]


def test_the_run_function_pushes_to_the_stage_it_may_manage() -> None:
    env = _props("RunFunction")["Environment"]["Variables"]
    endpoint = sub_text(env["MNEME_WEBSOCKET_ENDPOINT"])
    stage = _props("LiveStage")["StageName"]
    assert endpoint == "https://${LiveApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/" + stage
    assert f"/{stage}/POST/@connections/*" in CONNECTIONS


def _deployment() -> tuple[str, dict[str, Any]]:
    ((name, deployment),) = resources("AWS::ApiGatewayV2::Deployment").items()
    return name, deployment


def test_the_deployment_waits_for_every_route() -> None:
    depends = set(_deployment()[1]["DependsOn"])
    route_names = set(resources("AWS::ApiGatewayV2::Route"))
    assert depends == route_names


def test_the_outputs_name_the_websocket_url_and_the_connections_endpoint() -> None:
    outputs = load_template()["Outputs"]
    assert sub_text(outputs["LiveUrl"]["Value"]).startswith("wss://${LiveApi}.execute-api.")
    assert sub_text(outputs["LiveConnectionsEndpoint"]["Value"]) == sub_text(
        _props("RunFunction")["Environment"]["Variables"]["MNEME_WEBSOCKET_ENDPOINT"]
    )


def _route_digest() -> str:
    routes = sorted(
        (r["Properties"]["RouteKey"], json.dumps(r["Properties"], sort_keys=True))
        for r in resources("AWS::ApiGatewayV2::Route").values()
    )
    return hashlib.sha256(json.dumps(routes).encode()).hexdigest()[:10]


def test_the_deployment_is_replaced_whenever_the_route_set_changes() -> None:
    # CloudFormation makes a new deployment only for a new logical id: a fixed id never deploys later routes
    name, _ = _deployment()
    assert name == f"LiveDeployment{_route_digest()}"
    assert _props("LiveStage")["DeploymentId"] == {"Ref": name}


def test_the_websocket_stage_writes_an_access_log_to_a_retained_log_group() -> None:
    settings = _props("LiveStage")["AccessLogSettings"]
    assert settings["DestinationArn"] == {"Fn::GetAtt": ["LiveApiAccessLogs", "Arn"]}
    for field in ("$context.requestId", "$context.eventType", "$context.connectionId", "$context.status"):
        assert field in settings["Format"]
    group = _props("LiveApiAccessLogs")
    assert group["RetentionInDays"] == {"Ref": "LogRetentionDays"}
