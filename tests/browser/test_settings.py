"""The settings page (#/settings): the user's name, email, language and timezone, saved with If-Match."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import Console, fresh_user
from tests.functional.local.support import Client, LocalServer

SETTINGS = {"name": "Ada Lovelace", "email": "ada@example.org", "language": "de", "timezone": "Europe/Berlin"}


def _settings_page(server: LocalServer, console: Console) -> Client:
    client, _ = fresh_user(server, console)
    client.call("PUT", "/v1/me/settings", SETTINGS, expect=200)
    console.page.get_by_role("navigation", name="Main").get_by_role("link", name="Settings").click()
    expect(console.page.get_by_role("heading", name="Settings")).to_be_visible()
    return client


def test_the_settings_page_shows_the_users_settings(server: LocalServer, console: Console) -> None:
    _settings_page(server, console)
    page = console.page
    expect(page.get_by_label("Name")).to_have_value("Ada Lovelace")
    expect(page.get_by_label("Email")).to_have_value("ada@example.org")
    expect(page.get_by_label("Language")).to_have_value("de")
    expect(page.get_by_label("Timezone")).to_have_value("Europe/Berlin")


def test_a_saved_setting_is_stored_and_the_page_says_saved(server: LocalServer, console: Console) -> None:
    client = _settings_page(server, console)
    page = console.page
    page.get_by_label("Timezone").fill("America/Toronto")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    assert client.call("GET", "/v1/me/settings", expect=200)["timezone"] == "America/Toronto"


def test_a_refused_language_is_shown_next_to_its_field(server: LocalServer, console: Console) -> None:
    client = _settings_page(server, console)
    page = console.page
    page.get_by_label("Language").fill("not a language")
    page.get_by_role("button", name="Save").click()
    error = page.locator(".field").filter(has=page.get_by_label("Language")).get_by_role("alert")
    expect(error).to_contain_text("BCP-47")
    expect(page.get_by_label("Language")).to_have_attribute("aria-invalid", "true")
    assert client.call("GET", "/v1/me/settings", expect=200)["language"] == "de"


def test_settings_changed_elsewhere_are_not_overwritten(server: LocalServer, console: Console) -> None:
    # Given the settings page open, and the settings changed through the API meanwhile
    client = _settings_page(server, console)
    client.call("PUT", "/v1/me/settings", {**SETTINGS, "name": "Ada King"}, expect=200)
    page = console.page
    # When the page's form is saved
    page.get_by_label("Name").fill("Countess Lovelace")
    page.get_by_role("button", name="Save").click()
    # Then it says it was not saved, and the other change stays
    expect(page.get_by_role("alert")).to_contain_text("Not saved: your settings were changed elsewhere")
    assert client.call("GET", "/v1/me/settings", expect=200)["name"] == "Ada King"
