"""A session that ends while a form is being filled: what was typed comes back after signing in again."""

from __future__ import annotations

import base64
import json
import time
import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client, LocalServer


def _expiry(token: str) -> float:
    """The token's ``exp`` claim (seconds since the epoch)."""
    part = token.split(".")[1]
    return float(json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["exp"])


def test_a_form_filled_when_the_session_expired_is_given_back_after_signing_in_again(
    console: Console, server: LocalServer
) -> None:
    # Given a user signed in with a token that lives ten seconds, filling the new-skill form
    user, name = f"user-{uuid.uuid4().hex[:8]}", f"brief-{uuid.uuid4().hex[:6]}"
    short = server.token(user, hours=0.003)
    page = console.open("#/skills", token=short)
    page.get_by_role("link", name="New skill").click()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Description").fill("Short answers")
    page.get_by_label("Content").fill("Answer in two sentences at most.")
    # When the token expires and the form is submitted
    page.wait_for_timeout(max(0.0, _expiry(short) - time.time() + 1.0) * 1000)
    page.get_by_role("button", name="Create the skill").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    kept = page.evaluate("() => Object.values(sessionStorage).join(' ')")
    assert short not in kept  # the draft never holds the token
    # And the user signs in again
    page.get_by_label("Development token").fill(server.token(user))
    page.get_by_role("button", name="Sign in").click()
    # Then the same form is back with what was typed, and it can be created
    expect(page.get_by_test_id("draft-restored")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value(name)
    expect(page.get_by_label("Description")).to_have_value("Short answers")
    expect(page.get_by_label("Content")).to_have_value("Answer in two sentences at most.")
    page.get_by_role("button", name="Create the skill").click()
    expect(page.get_by_role("heading", name=f"Skill {name}")).to_be_visible()
    stored = Client(server, server.token(user)).call("GET", f"/v1/skills/{name}", expect=200)
    assert stored["content"] == "Answer in two sentences at most."
