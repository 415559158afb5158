"""Listings paged with the server's cursor keep the filters a page was shown with: Older and Newer ask with the
filters applied by the last Show (a cursor belongs to the query that returned it), an edit of the form that was
never applied changes nothing, and a failed query leaves no records of the previous one on the page."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import Console, fresh_user
from tests.functional.local.support import Client, LocalServer


def _write(client: Client, namespace: str, count: int) -> list[str]:
    """``count`` entries in ``namespace`` (each write is one `write` audit record), oldest first."""
    ids = []
    for n in range(count):
        body = {"namespace": namespace, "content": f"note {n} of {namespace}"}
        ids.append(client.call("POST", "/v1/memory/documents", body, expect=201)["ids"][0])
    return ids


def _cells(page: Page, column: int) -> list[str]:
    cells = page.get_by_test_id("audit-table").locator(f"tbody tr td:nth-child({column})")
    return [text.strip() for text in cells.all_inner_texts()]


def test_older_audit_records_keep_the_filters_of_the_page_shown(console: Console, server: LocalServer) -> None:
    # Given five write records, shown three a page
    client, user = fresh_user(server, console)
    for n in range(5):
        _write(client, f"vector.user.{user}.n{n}", 1)
    page = console.go("#/audit")
    form = page.locator("[data-form=audit]")
    form.get_by_label("Per page").fill("3")
    form.get_by_role("button", name="Show").click()
    table = page.get_by_test_id("audit-table")
    expect(table.locator("tbody tr")).to_have_count(3)
    first = _cells(page, 3)
    # When the action filter is changed but not applied, and Older is clicked
    form.get_by_label("Action").select_option("denied")
    page.get_by_role("button", name="Older →").click()
    # Then page 2 continues the listing that was shown: the two other writes
    expect(table).to_have_attribute("data-page", "2")
    expect(table.locator("tbody tr[data-action=write]")).to_have_count(2)
    assert sorted(first + _cells(page, 3)) == sorted(f"vector.user.{user}.n{n}" for n in range(5))


def test_a_failed_audit_filter_leaves_no_records_of_the_previous_one(console: Console, server: LocalServer) -> None:
    # Given the audit trail showing a record
    client, user = fresh_user(server, console)
    _write(client, f"vector.user.{user}.memory", 1)
    page = console.go("#/audit")
    expect(page.get_by_test_id("audit-table").locator("tbody tr")).to_have_count(1)
    # When a run that does not exist is asked for
    form = page.locator("[data-form=audit]")
    form.get_by_label("Run id").fill("no-such-run")
    form.get_by_role("button", name="Show").click()
    # Then the 404 is shown and the earlier records and their paging are gone
    expect(form.locator(".field-error")).to_contain_text("404")
    expect(page.get_by_test_id("audit-table")).to_have_count(0)
    expect(page.get_by_role("button", name="Older →")).to_have_count(0)


def test_older_runs_keep_the_filters_of_the_page_shown(console: Console, server: LocalServer) -> None:
    # Given 26 succeeded runs: one more than a page
    client, _ = fresh_user(server, console)
    client.call("PUT", "/v1/agents/pager", {"label": "pager"}, expect=200)
    for n in range(26):
        client.call("POST", "/v1/runs", {"agent_id": "pager", "input": f"hello {n}"}, expect=200)
    page = console.go("#/runs")
    listing = page.locator("[data-section=run-list]")
    listing.get_by_label("Filter by status").select_option("succeeded")
    listing.get_by_role("button", name="Show").click()
    expect(listing.get_by_test_id("run-table").locator("tbody tr")).to_have_count(25)
    # When the status filter is changed but not applied, and Older is clicked
    listing.get_by_label("Filter by status").select_option("failed")
    listing.get_by_role("button", name="Older →").click()
    # Then page 2 holds the oldest succeeded run
    table = listing.get_by_test_id("run-table")
    expect(table).to_have_attribute("data-page", "2")
    expect(table.locator("tbody tr[data-status=succeeded]")).to_have_count(1)
    expect(table).to_contain_text("hello 0")


def test_older_memory_entries_keep_the_filters_of_the_page_shown(console: Console, server: LocalServer) -> None:
    # Given three live entries of a namespace, browsed two a page
    client, user = fresh_user(server, console)
    namespace = f"vector.user.{user}.notes"
    ids = _write(client, namespace, 3)
    page = console.go("#/memory")
    page.get_by_role("button", name=f"Browse {namespace}").click()
    form = page.locator("[data-form=memory-browse]")
    form.get_by_label("Per page").fill("2")
    form.get_by_role("button", name="Show").click()
    table = page.get_by_test_id("memory-entries")
    expect(table.locator("tbody tr")).to_have_count(2)
    # When the status filter is changed to "deleted" but not applied, and Older is clicked
    form.get_by_label("Status").select_option("deleted")
    page.get_by_role("button", name="Older →").click()
    # Then page 2 holds the oldest live entry
    expect(page.get_by_test_id("entries-page")).to_have_text("Page 2")
    expect(table.locator("tbody tr")).to_have_count(1)
    expect(table.locator("tbody tr")).to_have_attribute("data-memory", ids[0])
