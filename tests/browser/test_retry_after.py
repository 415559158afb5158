"""An API answer that asks to wait (429/503 with Retry-After): the console says how long, not only that it failed."""

from __future__ import annotations

import json
import uuid

from playwright.sync_api import Route, expect

from tests.browser.conftest import Console
from tests.functional.local.support import LocalServer


def test_a_rate_limited_save_tells_the_user_how_long_to_wait(console: Console, server: LocalServer) -> None:
    # Given a user filling the new-skill form while the API answers 429 with Retry-After: 17
    user, name = f"user-{uuid.uuid4().hex[:8]}", f"brief-{uuid.uuid4().hex[:6]}"
    page = console.open("#/skills", token=server.token(user))

    def limited(route: Route) -> None:
        if route.request.method == "PUT":
            body = json.dumps({"error": "rate_limited", "message": "too many requests"})
            route.fulfill(status=429, headers={"Retry-After": "17", "Content-Type": "application/json"}, body=body)
        else:
            route.continue_()

    page.route("**/v1/skills/**", limited)
    page.get_by_role("link", name="New skill").click()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Description").fill("Short answers")
    page.get_by_label("Content").fill("Answer in two sentences at most.")
    # When it is submitted
    page.get_by_role("button", name="Create the skill").click()
    # Then the error says what happened and when to try again
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("too many requests")
    expect(alert).to_contain_text("try again in 17 s")
