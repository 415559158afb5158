"""The web console on AWS (template.yaml): a private bucket behind CloudFront (origin access control),
security headers, the Cognito hosted-UI client (code + PKCE), CORS for that origin only, and no route that
would send a CORS preflight to the JWT authorizer."""

from __future__ import annotations

from typing import Any

from tests.support.sam_template import load_template, resources

DISTRIBUTION_ORIGIN = {"Fn::Sub": "https://${ConsoleDistribution.DomainName}"}
DISTRIBUTION_URL = {"Fn::Sub": "https://${ConsoleDistribution.DomainName}/"}


def _props(name: str) -> dict[str, Any]:
    props: dict[str, Any] = resources()[name]["Properties"]
    return props


def _distribution() -> dict[str, Any]:
    config: dict[str, Any] = _props("ConsoleDistribution")["DistributionConfig"]
    return config


def test_the_bucket_is_private_encrypted_and_owner_enforced() -> None:
    bucket = _props("ConsoleBucket")
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    assert len(bucket["PublicAccessBlockConfiguration"]) == 4
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"] == {
        "SSEAlgorithm": "AES256"
    }
    assert bucket["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    assert "WebsiteConfiguration" not in bucket  # never a public website endpoint


def test_only_this_distribution_may_read_the_bucket_and_only_over_tls() -> None:
    statements = _props("ConsoleBucketPolicy")["PolicyDocument"]["Statement"]
    allows = [s for s in statements if s["Effect"] == "Allow"]
    assert len(allows) == 1
    (allow,) = allows
    assert allow["Principal"] == {"Service": "cloudfront.amazonaws.com"} and allow["Action"] == "s3:GetObject"
    source = allow["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"]
    assert source.endswith(":distribution/${ConsoleDistribution}")
    deny = next(s for s in statements if s["Effect"] == "Deny")
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": False}} and deny["Principal"] == "*"


def test_cloudfront_reaches_the_bucket_through_origin_access_control_only() -> None:
    oac = _props("ConsoleOriginAccessControl")["OriginAccessControlConfig"]
    assert (oac["OriginAccessControlOriginType"], oac["SigningBehavior"], oac["SigningProtocol"]) == (
        "s3",
        "always",
        "sigv4",
    )
    (origin,) = _distribution()["Origins"]
    assert origin["DomainName"] == {"Fn::GetAtt": ["ConsoleBucket", "RegionalDomainName"]}
    assert origin["OriginAccessControlId"] == {"Fn::GetAtt": ["ConsoleOriginAccessControl", "Id"]}
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}  # no legacy OAI


def test_the_distribution_serves_the_page_over_https_read_only_with_security_headers() -> None:
    config = _distribution()
    assert config["DefaultRootObject"] == "index.html"
    behaviour = config["DefaultCacheBehavior"]
    assert behaviour["ViewerProtocolPolicy"] == "redirect-to-https"
    assert behaviour["AllowedMethods"] == ["GET", "HEAD"]
    assert behaviour["ResponseHeadersPolicyId"] == {"Ref": "ConsoleHeaders"}
    assert "CacheBehaviors" not in config  # nothing but the console's files behind it


def test_the_content_security_policy_allows_only_the_console_the_api_and_the_sign_in_domain() -> None:
    security = _props("ConsoleHeaders")["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    parts = security["ContentSecurityPolicy"]["ContentSecurityPolicy"]["Fn::Join"][1]
    text = "".join(p if isinstance(p, str) else "" for p in parts)
    assert "default-src 'none'" in text and "script-src 'self'" in text and "frame-ancestors 'none'" in text
    assert "'unsafe-inline'" not in text and "'unsafe-eval'" not in text
    subs = [p["Fn::Sub"] for p in parts if isinstance(p, dict) and "Fn::Sub" in p]
    assert subs == [" https://*.execute-api.${AWS::Region}.${AWS::URLSuffix}"]
    cognito = next(p["Fn::If"] for p in parts if isinstance(p, dict) and "Fn::If" in p)
    assert cognito[0] == "CreateUserPool" and "${ConsoleUserPoolDomain}.auth." in cognito[1]["Fn::Sub"]
    assert security["StrictTransportSecurity"]["AccessControlMaxAgeSec"] >= 31536000
    assert security["FrameOptions"]["FrameOption"] == "DENY"


def test_the_console_signs_in_with_its_own_public_client_by_code_and_pkce() -> None:
    client = _props("ConsoleUserPoolClient")
    assert resources()["ConsoleUserPoolClient"]["Condition"] == "CreateUserPool"
    assert client["GenerateSecret"] is False
    assert client["AllowedOAuthFlows"] == ["code"]  # never implicit
    assert client["AllowedOAuthFlowsUserPoolClient"] is True
    assert "openid" in client["AllowedOAuthScopes"]
    assert client["CallbackURLs"] == [DISTRIBUTION_URL] and client["LogoutURLs"] == [DISTRIBUTION_URL]
    assert client["ExplicitAuthFlows"] == ["ALLOW_REFRESH_TOKEN_AUTH"]  # no password flows from a browser
    assert client["SupportedIdentityProviders"] == ["COGNITO"]


def test_the_hosted_ui_domain_is_unique_to_the_stack() -> None:
    domain = _props("ConsoleUserPoolDomain")
    assert resources()["ConsoleUserPoolDomain"]["Condition"] == "CreateUserPool"
    assert domain["UserPoolId"] == {"Ref": "UserPool"}
    assert domain["Domain"] == {
        "Fn::Join": ["-", ["mneme", {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]}]]
    }


def test_the_api_accepts_the_console_clients_tokens() -> None:
    jwt = _props("HttpApi")["Auth"]["Authorizers"]["JwtAuth"]["JwtConfiguration"]
    assert {"Ref": "ConsoleUserPoolClient"} in jwt["audience"]["Fn::If"][1]


def test_cors_admits_the_console_origin_only() -> None:
    cors = _props("HttpApi")["CorsConfiguration"]
    assert cors["AllowOrigins"] == [DISTRIBUTION_ORIGIN]
    assert set(cors["AllowMethods"]) == {"GET", "POST", "PUT", "PATCH", "DELETE"}
    assert {"authorization", "content-type", "idempotency-key"} <= set(cors["AllowHeaders"])
    assert "AllowCredentials" not in cors  # a bearer token, never cookies
    assert "*" not in cors["AllowOrigins"] + cors["AllowHeaders"]


def test_cors_lets_the_console_send_preconditions_and_read_etags() -> None:
    cors = _props("HttpApi")["CorsConfiguration"]
    assert {"if-match", "if-none-match"} <= set(cors["AllowHeaders"])
    assert "etag" in cors["ExposeHeaders"]


def test_no_route_would_hand_a_cors_preflight_to_the_authorizer() -> None:
    # API Gateway answers a preflight itself only when no route matches OPTIONS (an ANY route would)
    events = _props("RunFunction")["Events"].values()
    methods = {e["Properties"]["Method"].upper() for e in events if e["Type"] == "HttpApi"}
    assert methods.isdisjoint({"ANY", "OPTIONS"})


def test_the_deploy_command_finds_everything_in_the_outputs() -> None:
    outputs = load_template()["Outputs"]
    assert outputs["ConsoleUrl"]["Value"] == DISTRIBUTION_URL
    assert outputs["ConsoleBucketName"]["Value"] == {"Ref": "ConsoleBucket"}
    assert outputs["ConsoleDistributionId"]["Value"] == {"Ref": "ConsoleDistribution"}
    assert outputs["ConsoleClientId"]["Value"] == {"Ref": "ConsoleUserPoolClient"}
    assert (
        "${ConsoleUserPoolDomain}.auth.${AWS::Region}.amazoncognito.com"
        in outputs["ConsoleAuthDomain"]["Value"]["Fn::Sub"]
    )
