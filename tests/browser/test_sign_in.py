"""Signing in to the console locally: a pasted dev token or ``#token=…``; a refused token; signing out."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import LocalServer


def test_a_pasted_dev_token_signs_in_and_shows_the_user(console: Console, alice_token: str) -> None:
    # Given the console opened without a session
    page = console.open("#/runs")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    # When alice pastes the token `make token USER=alice` printed
    page.get_by_label("Development token").fill(alice_token)
    page.get_by_role("button", name="Sign in").click()
    # Then she is signed in, the navigation appears and the runs view loads
    expect(page.get_by_test_id("user")).to_have_text("alice")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible()
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    console.screenshot("sign-in-done")


def test_a_token_the_server_refuses_stays_on_the_sign_in_form_with_the_reason(
    console: Console, server: LocalServer
) -> None:
    # Given a token signed with another key (a well-formed JWT the server never issued)
    forged = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLWFub3RoZXIta2V5"
    page = console.open("#/runs")
    # When it is pasted
    page.get_by_label("Development token").fill(forged)
    page.get_by_role("button", name="Sign in").click()
    # Then the form says the server refused it, marks the field, and nothing is stored
    expect(page.locator("#signin-error")).to_contain_text("401")
    expect(page.get_by_label("Development token")).to_have_attribute("aria-invalid", "true")
    assert page.evaluate("() => sessionStorage.getItem('mneme.session')") is None


def test_text_that_is_no_token_is_explained_without_calling_the_api(console: Console) -> None:
    page = console.open("#/runs")
    page.get_by_label("Development token").fill("not a token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#signin-error")).to_contain_text("not a JWT")


def test_a_token_in_the_fragment_signs_in_and_leaves_the_address_bar(console: Console, alice_token: str) -> None:
    # When the console is opened with #token=…
    page = console.open("#/runs", token=alice_token)
    # Then alice is signed in and the token is gone from the URL
    expect(page.get_by_test_id("user")).to_have_text("alice")
    assert alice_token not in page.url and page.url.endswith("#/runs")


def test_signing_out_forgets_the_token(console: Console, alice_token: str) -> None:
    # Given a signed-in tab
    page = console.open("#/runs", token=alice_token)
    expect(page.get_by_test_id("user")).to_have_text("alice")
    # When alice signs out
    page.get_by_role("button", name="Sign out").click()
    # Then the sign-in form is back, the session is gone, and a reload stays signed out
    expect(page.get_by_label("Development token")).to_be_visible()
    assert page.evaluate("() => sessionStorage.getItem('mneme.session')") is None
    page.reload()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()


def test_the_page_and_its_assets_load_without_a_token_but_the_api_needs_one(server: LocalServer) -> None:
    # The console's files are public; the API behind it is not
    assert server.request("GET", "/").status == 200
    assert server.request("GET", "/console/js/app.js").status == 200
    assert server.request("GET", "/v1/agents").status == 401


def test_a_token_link_opened_in_a_signed_in_tab_signs_in_with_it(
    console: Console, server: LocalServer, alice_token: str
) -> None:
    # Given a tab signed in as alice, showing the agents
    page = console.open("#/agents", token=alice_token)
    expect(page.get_by_test_id("user")).to_have_text("alice")
    # When a #token= link of another user is opened in it
    page.goto(f"{console.base}/#token={server.token('bob')}")
    # Then the tab is signed in as that user, on the runs view
    expect(page.get_by_test_id("user")).to_have_text("bob")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible()


def test_a_token_link_opened_in_a_signed_in_tab_leaves_the_address_bar_and_history(
    console: Console, server: LocalServer, alice_token: str
) -> None:
    page = console.open("#/agents", token=alice_token)
    expect(page.get_by_test_id("user")).to_have_text("alice")
    token = server.token("bob")
    page.goto(f"{console.base}/#token={token}")
    expect(page.get_by_test_id("user")).to_have_text("bob")
    assert token not in page.url and page.url.endswith("#/runs")
    page.go_back()  # the entry the link made holds no token either: back goes to the page before it
    expect(page.get_by_role("heading", name="Agents", exact=True)).to_be_visible()
    assert token not in page.url


def test_a_token_link_that_is_refused_leaves_the_address_bar_too(console: Console) -> None:
    page = console.open("#token=not-a-token")
    expect(page.locator("#signin-error")).to_contain_text("not a JWT")
    assert "not-a-token" not in page.url
