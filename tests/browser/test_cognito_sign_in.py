"""The AWS sign-in of the console (config mode "cognito"): the hosted UI's authorization-code flow with
PKCE, against a stand-in of the Cognito endpoints served by the browser's request interception. The token
it hands out is a real local dev token, so the API calls after sign-in are really authorized."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, Route, expect

from mneme_local.console_assets import CONTENT_SECURITY_POLICY
from tests.browser.conftest import Console
from tests.functional.local.support import LocalServer

HOSTED_UI = "https://mneme-test.auth.us-east-1.amazoncognito.com"
CLIENT_ID = "console-client-id"


class FakeCognito:
    """/oauth2/authorize, /oauth2/token and /logout of a user pool domain, checking what the console sends."""

    def __init__(self, page: Page, server: LocalServer, id_token: str, *, state_override: str | None = None) -> None:
        self.server = server
        self.id_token = id_token
        self.state_override = state_override
        self.authorize: dict[str, list[str]] = {}
        self.token: dict[str, list[str]] = {}
        self.logout: dict[str, list[str]] = {}
        config = {
            "mode": "cognito",
            "api_base_url": "",
            "cognito_domain": HOSTED_UI,
            "client_id": CLIENT_ID,
            "redirect_uri": f"{server.base}/",
        }
        page.route(f"{server.base}/console/config.json", lambda route: route.fulfill(json=config))
        page.route(lambda url: urlsplit(url).path == "/" and url.startswith(server.base), self._document)
        page.route(f"{HOSTED_UI}/oauth2/authorize?*", self._authorize)
        page.route(f"{HOSTED_UI}/oauth2/token", self._token)
        page.route(f"{HOSTED_UI}/logout?*", self._logout)

    def _document(self, route: Route) -> None:
        # the CSP CloudFront sends on AWS lets the console reach its sign-in domain
        response = route.fetch()
        csp = CONTENT_SECURITY_POLICY.replace("connect-src 'self'", f"connect-src 'self' {HOSTED_UI}")
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": csp})

    def _authorize(self, route: Route) -> None:
        self.authorize = parse_qs(urlsplit(route.request.url).query)
        state = self.state_override or self.authorize["state"][0]
        target = f"{self.authorize['redirect_uri'][0]}?code=the-code&state={state}"
        route.fulfill(status=200, content_type="text/html", body=_redirect_page(target))

    def _token(self, route: Route) -> None:
        self.token = parse_qs(route.request.post_data or "")
        verifier = self.token.get("code_verifier", [""])[0].encode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
        valid = (
            self.token.get("grant_type") == ["authorization_code"]
            and self.token.get("code") == ["the-code"]
            and challenge == self.authorize.get("code_challenge", [""])[0]
        )
        body: dict[str, Any] = (
            {"id_token": self.id_token, "access_token": "unused", "refresh_token": "r", "expires_in": 3600}
            if valid
            else {"error": "invalid_grant"}
        )
        route.fulfill(status=200 if valid else 400, json=body, headers={"Access-Control-Allow-Origin": "*"})

    def _logout(self, route: Route) -> None:
        self.logout = parse_qs(urlsplit(route.request.url).query)
        route.fulfill(status=200, content_type="text/html", body=_redirect_page(self.logout["logout_uri"][0]))


def _redirect_page(target: str) -> str:
    # a new navigation (a 302 from an intercepted request would skip the interception of its target)
    return f'<!doctype html><meta http-equiv="refresh" content="0;url={target}">'


def test_the_hosted_ui_sign_in_exchanges_the_code_with_the_pkce_verifier(console: Console, server: LocalServer) -> None:
    page = console.page
    cognito = FakeCognito(page, server, server.token("carol"))
    # Given the console on AWS, opened on the memory view
    page.goto(f"{server.base}/#/memory")
    # When carol signs in through the hosted UI
    page.get_by_role("button", name="Sign in").click()
    # Then she is back on the view she opened, signed in, and the code left the address bar
    expect(page.get_by_test_id("user")).to_have_text("carol")
    expect(page.get_by_role("heading", name="Memory", exact=True)).to_be_visible()
    assert "code=" not in page.url and page.url.endswith("#/memory")
    # And the console asked for a code with an S256 challenge, and redeemed it with the matching verifier
    asked = cognito.authorize
    assert (asked["response_type"], asked["client_id"], asked["code_challenge_method"]) == (
        ["code"],
        [CLIENT_ID],
        ["S256"],
    )
    assert "openid" in asked["scope"][0].split() and asked["redirect_uri"] == [f"{server.base}/"]
    assert cognito.token["client_id"] == [CLIENT_ID] and len(cognito.token["code_verifier"][0]) >= 43
    # And the API accepts the token it got (the runs view lists carol's agents: none yet)
    page.goto(f"{server.base}/#/runs")
    expect(page.get_by_text("No agent yet")).to_be_visible()


def test_signing_out_ends_the_hosted_ui_session_too(console: Console, server: LocalServer) -> None:
    page = console.page
    cognito = FakeCognito(page, server, server.token("dave"))
    page.goto(f"{server.base}/#/runs")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_test_id("user")).to_have_text("dave")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert cognito.logout == {"client_id": [CLIENT_ID], "logout_uri": [f"{server.base}/"]}
    assert page.evaluate("() => sessionStorage.getItem('mneme.session')") is None


def test_a_code_returned_with_another_state_is_refused(console: Console, server: LocalServer) -> None:
    page = console.page
    cognito = FakeCognito(page, server, server.token("erin"), state_override="forged-state")
    page.goto(f"{server.base}/#/runs")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("state does not match")
    assert cognito.token == {}  # the code was never redeemed
    assert page.evaluate("() => sessionStorage.getItem('mneme.session')") is None
