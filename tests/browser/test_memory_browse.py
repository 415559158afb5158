"""Browsing memory in the console: the namespaces with their counts, a namespace's entries by recency with a
status filter and cursor paging, an entry's detail, and a delete that names its cascade before it is confirmed.

The derived entry is made the way mneme makes one: a run that was given a memory writes its answer back
(auto-write), ``derived_from`` the memory it was given — so deleting that memory cascades to the answer."""

from __future__ import annotations

import time
import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.browser.conftest import fresh_user as _user
from tests.functional.local.support import Client, LocalServer


def _list(client: Client, namespace: str, status: str = "") -> list[dict[str, object]]:
    suffix = f"&status={status}" if status else ""
    return list(client.call("GET", f"/v1/memory/documents?namespace={namespace}{suffix}", expect=200)["documents"])


def _parent_and_derived(client: Client, namespace: str) -> tuple[str, str]:
    """A memory, and a run's answer written back derived from it (both in ``namespace``)."""
    parent = client.call(
        "POST", "/v1/memory/documents", {"namespace": namespace, "content": "The Apollo review is due on March 15."}
    )["ids"][0]
    agent = f"writer-{uuid.uuid4().hex[:6]}"
    policy = {"allow_write": True, "write_namespace": "vector.user.${user_id}.memory"}
    client.call("PUT", f"/v1/agents/{agent}", {"label": agent, "memory_policy": policy}, expect=200)
    client.call("POST", "/v1/runs", {"agent_id": agent, "input": "When is the Apollo review due?"}, expect=200)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        derived = [d for d in _list(client, namespace) if parent in d["derived_from"]]  # type: ignore[operator]
        if derived:
            return str(parent), str(derived[0]["id"])
        time.sleep(0.2)
    raise AssertionError(f"no entry derived from {parent} was written: {_list(client, namespace)}")


def test_a_namespace_is_browsed_and_a_delete_names_its_cascade_before_it_is_confirmed(
    console: Console, server: LocalServer
) -> None:
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.memory"
    parent, derived = _parent_and_derived(client, namespace)
    page = console.page
    page.goto(f"{console.base}/#/memory")
    # Then the namespace is listed with its counts
    row = page.get_by_test_id("namespaces").locator(f"tr[data-namespace='{namespace}']")
    expect(row.locator("td.num")).to_have_text(["2", "0", "0"])
    # When alice browses it, both entries are listed, the newest (the derived answer) first
    row.get_by_role("button", name=f"Browse {namespace}").click()
    entries = page.get_by_test_id("memory-entries").locator("tbody tr")
    expect(entries).to_have_count(2)
    expect(entries.nth(0)).to_have_attribute("data-memory", derived)
    expect(entries.nth(1)).to_have_attribute("data-memory", parent)
    # When she opens the parent, its detail names the derived entry its delete would take along
    page.get_by_role("button", name=f"Open memory entry {parent}").click()
    panel = page.locator("[data-section=memory-entry]")
    expect(panel.get_by_test_id("entry-content")).to_have_text("The Apollo review is due on March 15.")
    expect(panel.get_by_test_id("derived")).to_contain_text(derived)
    assert "null" not in panel.inner_text()  # an absent field is not written out as "null"
    # And Delete shows the cascade BEFORE anything is deleted
    panel.get_by_role("button", name="Delete…").click()
    expect(panel.get_by_test_id("cascade-ids").locator("li")).to_have_text([derived])
    console.screenshot("memory-browse")
    assert {d["id"] for d in _list(client, namespace)} == {parent, derived}
    # When she confirms
    panel.get_by_role("button", name="Delete 2 entries").click()
    # Then both are gone from the list, the counts say so, and the API agrees
    expect(panel.get_by_test_id("deleted")).to_contain_text(derived)
    expect(page.get_by_test_id("memory-entries")).to_have_count(0)
    expect(row.locator("td.num")).to_have_text(["0", "0", "2"])
    assert _list(client, namespace) == []
    assert {d["id"] for d in _list(client, namespace, "deleted")} == {parent, derived}
    client.call("GET", f"/v1/memory/documents/{derived}", expect=404)


def test_keep_deletes_nothing(console: Console, server: LocalServer) -> None:
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.memory"
    parent, derived = _parent_and_derived(client, namespace)
    page = console.page
    page.goto(f"{console.base}/#/memory")
    page.get_by_role("button", name=f"Browse {namespace}").click()
    page.get_by_role("button", name=f"Open memory entry {parent}").click()
    panel = page.locator("[data-section=memory-entry]")
    panel.get_by_role("button", name="Delete…").click()
    panel.get_by_role("button", name="Keep").click()
    expect(panel.get_by_test_id("cascade")).to_have_count(0)
    assert {d["id"] for d in _list(client, namespace)} == {parent, derived}


def test_entries_are_paged_with_the_cursor_and_filtered_by_status(console: Console, server: LocalServer) -> None:
    # Given three entries, one of them deleted
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.notes"
    ids = [
        client.call("POST", "/v1/memory/documents", {"namespace": namespace, "content": f"note {n}"})["ids"][0]
        for n in range(3)
    ]
    client.call("DELETE", f"/v1/memory/documents/{ids[0]}", expect=204)
    page = console.page
    page.goto(f"{console.base}/#/memory")
    page.get_by_role("button", name=f"Browse {namespace}").click()
    form = page.locator("[data-form=memory-browse]")
    # When she asks for one a page
    table = page.get_by_test_id("memory-entries")
    expect(table.locator("tbody tr")).to_have_count(2)  # the first page, 25 a page
    per_page = form.get_by_label("Per page")
    per_page.fill("1")
    with page.expect_response(lambda r: "/v1/memory/documents?" in r.url and "limit=1" in r.url) as answer:
        per_page.press("Enter")  # the keyboard submits the form
    assert answer.value.status == 200, answer.value.text()
    # Then the cursor walks the two live entries, newest first, and stops (the answer is in before the page shows it:
    # wait for the one row, else the assertion meets the two rows still shown and fails at once, in strict mode)
    expect(table.locator("tbody tr")).to_have_count(1)
    expect(table.locator("tbody tr")).to_have_attribute("data-memory", ids[2])
    older = page.get_by_role("button", name="Older →")
    older.click()
    expect(page.get_by_test_id("entries-page")).to_have_text("Page 2")
    expect(table.locator("tbody tr")).to_have_attribute("data-memory", ids[1])
    expect(older).to_be_disabled()
    # And the deleted one is listed only when asked for, without an Open button
    form.get_by_label("Status").select_option("deleted")
    form.get_by_role("button", name="Show").click()
    expect(table.locator("tbody tr")).to_have_attribute("data-memory", ids[0])
    expect(table.get_by_role("button")).to_have_count(0)


def test_an_opened_entry_has_an_address_that_reopens_it(console: Console, server: LocalServer) -> None:
    # Given an entry of alice's, opened from the namespace's list
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.notes"
    body = {"namespace": namespace, "content": "Pia likes oolong."}
    entry = client.call("POST", "/v1/memory/documents", body)["ids"][0]
    page = console.page
    page.goto(f"{console.base}/#/memory")
    page.get_by_role("button", name=f"Browse {namespace}").click()
    page.get_by_role("button", name=f"Open memory entry {entry}").click()
    panel = page.locator("[data-section=memory-entry]")
    expect(panel.get_by_test_id("entry-content")).to_have_text("Pia likes oolong.")
    # Then the address names it, and opening that address afresh shows the same entry
    assert page.url.endswith(f"#/memory/{entry}"), page.url
    page.reload()
    expect(page.locator("[data-section=memory-entry]").get_by_test_id("entry-content")).to_have_text(
        "Pia likes oolong."
    )


def test_another_users_entry_address_shows_a_404_and_nothing_of_it(console: Console, server: LocalServer) -> None:
    # Given an entry of another user
    owner = f"user-{uuid.uuid4().hex[:8]}"
    other = Client(server, server.token(owner))
    secret = other.call(
        "POST", "/v1/memory/documents", {"namespace": f"vector.user.{owner}.notes", "content": "a secret"}
    )["ids"][0]
    # When alice opens its address
    _user(server, console)
    page = console.page
    page.goto(f"{console.base}/#/memory/{secret}")
    # Then the panel says 404 and shows none of its content
    panel = page.locator("[data-section=memory-entry]")
    expect(panel.get_by_role("alert")).to_contain_text("404")
    assert "a secret" not in page.content()
