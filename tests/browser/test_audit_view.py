"""The audit view offers every action the API records, and a context preview's record (its run id is
``preview-…``: no run, no trace) is not linked to a trace that does not exist."""

from __future__ import annotations

from typing import get_args

from playwright.sync_api import expect

from mneme.models.audit import AuditAction
from tests.browser.conftest import Console, fresh_user
from tests.functional.local.support import LocalServer


def test_the_action_filter_offers_every_action_the_api_records(console: Console, server: LocalServer) -> None:
    fresh_user(server, console, "#/audit")
    options = console.page.locator("[data-form=audit]").get_by_label("Action").locator("option")
    expect(options).to_have_text(["(any)", *get_args(AuditAction)])


def test_a_preview_record_shows_its_run_id_as_text_not_a_link(console: Console, server: LocalServer) -> None:
    # Given a context preview that read a memory (audited with the run id preview-<hex>)
    client, user = fresh_user(server, console)
    body = {"namespace": f"vector.user.{user}.memory", "content": "The kiln is fired on Fridays."}
    client.call("POST", "/v1/memory/documents", body, expect=201)
    client.call("PUT", "/v1/agents/potter", {"label": "Potter"}, expect=200)
    client.call("POST", "/v1/context/preview", {"agent_id": "potter", "input": "When is the kiln fired?"}, expect=200)
    # When the audit trail is shown
    page = console.go("#/audit")
    # Then the record's run is shown as a preview's id, with no link to a trace
    row = page.get_by_test_id("audit-table").locator("tbody tr[data-action=preview]").first
    expect(row.get_by_test_id("preview-run")).to_contain_text("preview-")
    expect(row.get_by_test_id("preview-run")).to_contain_text("(preview, no trace)")
    expect(row.get_by_role("link")).to_have_count(0)
