"""Memory (search with scores, write, delete) and the audit trail (filters, cursor paging) in the console.

Each test signs in as its own user, so the records it pages through are only its own."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.browser.conftest import fresh_user as _user
from tests.functional.local.support import LocalServer


def test_an_entry_written_in_the_console_is_found_with_its_scores_and_deleted(
    console: Console, server: LocalServer
) -> None:
    client, user = _user(server, console, "#/memory")
    page = console.page
    # Given an entry written through the form
    write = page.locator("[data-form=memory-write]")
    write.get_by_label("Content").fill("The Hermes launch moved to the second week of May.")
    write.get_by_role("button", name="Write").click()
    expect(write.get_by_test_id("written-id")).to_have_text(re.compile(r"^[0-9a-f]{32}$"))
    entry_id = write.get_by_test_id("written-id").inner_text()
    # When alice searches for it
    search = page.locator("[data-form=memory-search]")
    search.get_by_label("Query").fill("When is the Hermes launch?")
    search.get_by_role("button", name="Search").click()
    # Then it is listed with its namespace, similarity and relevance
    row = page.locator(f"[data-testid=memory-results] tr[data-memory='{entry_id}']")
    expect(row).to_contain_text(f"vector.user.{user}.memory")
    expect(row.locator("td.num").nth(0)).to_have_text(re.compile(r"^[01]\.\d{4}$"))  # hybrid: the fused score
    expect(row.locator("td.num").nth(1)).to_have_text(re.compile(r"^\d\.\d{4}$"))
    console.screenshot("memory")
    # When it is deleted from the results (the confirmation is accepted)
    row.get_by_role("button", name=f"Delete memory entry {entry_id}").click()
    # Then it is gone from the results and from the API, and the deletion is audited
    expect(row).to_have_count(0)
    found = client.call("POST", "/v1/memory/search", {"query": "When is the Hermes launch?"}, expect=200)
    assert entry_id not in [hit["id"] for hit in found["hits"]]
    deletes = client.call("GET", "/v1/audit?action=delete", expect=200)["records"]
    assert [r["detail"].get("id") for r in deletes] == [entry_id]


def test_deleting_an_unknown_id_says_not_found_inline(console: Console, server: LocalServer) -> None:
    _user(server, console, "#/memory")
    form = console.page.locator("[data-form=memory-delete]")
    form.get_by_label("Entry id").fill("0" * 32)
    form.get_by_role("button", name="Delete").click()
    expect(form.get_by_role("alert")).to_contain_text("404")


def test_a_write_to_another_users_namespace_is_refused_inline(console: Console, server: LocalServer) -> None:
    _user(server, console, "#/memory")
    form = console.page.locator("[data-form=memory-write]")
    form.get_by_label("Namespace").fill("vector.user.somebody-else.memory")
    form.get_by_label("Content").fill("not yours")
    form.get_by_role("button", name="Write").click()
    expect(form.locator(".field-error")).to_contain_text("403")
    expect(form.get_by_label("Namespace")).to_have_attribute("aria-invalid", "true")


def _namespaces(console: Console) -> list[str]:
    cells = console.page.get_by_test_id("audit-table").locator("tbody tr td:nth-child(3)")
    return [text.strip() for text in cells.all_inner_texts()]


def test_the_audit_trail_pages_with_the_cursor_and_filters_by_action(console: Console, server: LocalServer) -> None:
    # Given five memory writes of a fresh user, each to its own namespace, and a search (read records)
    client, user = _user(server, console, "#/runs")
    written = [f"vector.user.{user}.n{n}" for n in range(5)]
    for namespace in written:
        client.call(
            "POST", "/v1/memory/documents", {"namespace": namespace, "content": f"entry of {namespace}"}, expect=201
        )
    client.call("POST", "/v1/memory/search", {"query": "entry"}, expect=200)
    page = console.page
    page.goto(f"{console.base}/#/audit")
    # When she filters by action write, two a page
    form = page.locator("[data-form=audit]")
    form.get_by_label("Action").select_option("write")
    form.get_by_label("Per page").fill("2")
    form.get_by_role("button", name="Show").click()
    table = page.get_by_test_id("audit-table")
    # Then page 1 has the two newest write records
    expect(table).to_have_attribute("data-page", "1")
    expect(table.locator("tbody tr[data-action=write]")).to_have_count(2)
    first = _namespaces(console)
    console.screenshot("audit")
    # And "Older" walks the cursor through pages 2 and 3 (one record, no older page): every write once
    older, newer = page.get_by_role("button", name="Older →"), page.get_by_role("button", name="← Newer")
    older.click()
    expect(page.get_by_test_id("audit-table")).to_have_attribute("data-page", "2")
    second = _namespaces(console)
    older.click()
    expect(page.get_by_test_id("audit-table")).to_have_attribute("data-page", "3")
    third = _namespaces(console)
    expect(older).to_be_disabled()
    assert (len(first), len(second), len(third)) == (2, 2, 1)
    assert sorted(first + second + third) == sorted(written)
    # And "Newer" goes back to the same first page
    newer.click()
    expect(page.get_by_test_id("audit-table")).to_have_attribute("data-page", "2")
    newer.click()
    expect(page.get_by_test_id("audit-table")).to_have_attribute("data-page", "1")
    assert _namespaces(console) == first
    expect(newer).to_be_disabled()
    # When the filter is the read action, only reads are listed
    form.get_by_label("Action").select_option("read")
    form.get_by_role("button", name="Show").click()
    expect(page.get_by_test_id("audit-table").locator("tbody tr[data-action=read]")).not_to_have_count(0)
    expect(page.get_by_test_id("audit-table").locator("tbody tr:not([data-action=read])")).to_have_count(0)


def test_an_audit_filter_on_an_unknown_run_is_reported(console: Console, server: LocalServer) -> None:
    _user(server, console, "#/audit")
    form = console.page.locator("[data-form=audit]")
    form.get_by_label("Run id").fill("no-such-run")
    form.get_by_role("button", name="Show").click()
    expect(form.locator(".field-error")).to_contain_text("404")


def test_a_search_without_hits_says_so_and_nothing_else(console: Console, server: LocalServer) -> None:
    _user(server, console, "#/memory")  # a fresh user: no memory at all
    search = console.page.locator("[data-form=memory-search]")
    search.get_by_label("Query").fill("Anything at all?")
    search.get_by_role("button", name="Search").click()
    results = console.page.locator("[data-form=memory-search] + div")
    expect(results).to_contain_text("0 hit(s)")
    assert "null" not in results.inner_text()
