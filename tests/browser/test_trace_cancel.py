"""Cancelling a run from the trace view (``POST /v1/runs/{id}/cancel``): offered while it is unfinished,
the cancelled state shown at once and agreed by the API; a finished run offers no cancel."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.browser.waiting import careful_agent, waiting_run
from tests.functional.local.support import Client


def test_a_waiting_run_is_cancelled_from_its_trace(signed_in: Console, alice: Client) -> None:
    # Given a run that waits for a person, open in the trace
    run_id = waiting_run(alice, careful_agent(alice), "/search Should this run go on?")
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.get_by_test_id("status")).to_have_text("waiting approval")
    cancel = page.get_by_role("button", name="Cancel the run")
    # When alice cancels it with the keyboard (the confirmation is accepted)
    cancel.focus()
    page.keyboard.press("Enter")
    # Then the page shows it cancelled, its approval gone, no cancel offered and nothing followed any more
    expect(page.get_by_test_id("status")).to_have_text("cancelled", timeout=10_000)
    expect(page.locator("[data-section=tree] button").first).to_contain_text("cancelled")
    expect(page.locator("[data-section=approvals]")).to_have_count(0)
    expect(page.get_by_role("button", name="Cancel the run")).to_have_count(0)
    expect(page.get_by_test_id("live")).to_have_text("")
    # And the API agrees, with the cancel audited
    assert alice.call("GET", f"/v1/runs/{run_id}", expect=200)["status"] == "cancelled"
    events = alice.call("GET", f"/v1/runs/{run_id}/events", expect=200)["events"]
    assert [e["type"] for e in events][-2:] == ["cancelled", "completed"], events


def test_a_finished_run_offers_no_cancel(signed_in: Console, alice: Client) -> None:
    run_id = waiting_run(alice, careful_agent(alice), "/search Is this one over?")
    alice.call("POST", f"/v1/runs/{run_id}/cancel", {}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.get_by_test_id("status")).to_have_text("cancelled")
    expect(page.locator("[data-section=cancel]")).to_have_count(0)


def test_a_run_that_ended_before_the_cancel_says_so_next_to_the_button(signed_in: Console, alice: Client) -> None:
    # Given the trace of a waiting run whose long-poll is blocked, so the page still shows it waiting
    page = signed_in.page
    page.route(
        "**/v1/runs/*/events?*", lambda route: route.abort() if "wait=" in route.request.url else route.fallback()
    )
    run_id = waiting_run(alice, careful_agent(alice), "/search Too late to cancel?")
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.get_by_role("button", name="Cancel the run")).to_be_visible()
    page.route(f"**/v1/runs/{run_id}", lambda route: route.abort())  # and its polls too
    # When it ends another way (denied elsewhere) and alice then cancels
    events = alice.call("GET", f"/v1/runs/{run_id}/events", expect=200)["events"]
    call_id = next(e for e in events if e["type"] == "approval_requested")["calls"][0]["call_id"]
    alice.call("POST", f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "deny"}, expect=200)
    for _ in range(50):
        if alice.call("GET", f"/v1/runs/{run_id}", expect=200)["status"] == "succeeded":
            break
        page.wait_for_timeout(200)
    page.get_by_role("button", name="Cancel the run").click()
    # Then the server's 409 is shown next to the button
    expect(page.get_by_test_id("cancel-error")).to_contain_text("409")


BAD_FG = "rgb(138, 28, 28)"  # the error colour (--bad-fg): a failed run's, never a cancelled one's


def test_a_cancelled_run_says_so_in_a_neutral_note_not_as_an_error(signed_in: Console, alice: Client) -> None:
    # Given a run cancelled by its owner
    run_id = waiting_run(alice, careful_agent(alice), "/search Is this an error?")
    alice.call("POST", f"/v1/runs/{run_id}/cancel", {}, expect=200)
    # When its trace is opened
    page = signed_in.go(f"#/runs/{run_id}")
    # Then its summary says it was cancelled by its owner, with no error and no error colour
    summary = page.locator("[data-section=summary]")
    expect(summary.get_by_test_id("cancelled")).to_have_text("Cancelled by its owner")
    expect(summary.get_by_role("alert")).to_have_count(0)
    expect(summary).not_to_contain_text("Error:")
    expect(page.get_by_test_id("status").locator(".badge")).not_to_have_css("color", BAD_FG)


def test_a_cancelled_run_is_listed_as_cancelled_not_with_an_error(signed_in: Console, alice: Client) -> None:
    run_id = waiting_run(alice, careful_agent(alice), "/search Listed how?")
    alice.call("POST", f"/v1/runs/{run_id}/cancel", {}, expect=200)
    page = signed_in.go("#/runs")
    row = page.locator(f"[data-testid=run-table] tr[data-run='{run_id}']")
    expect(row.get_by_test_id("run-cancelled")).to_have_text("Cancelled by its owner")
    expect(row.get_by_test_id("run-error")).to_have_count(0)
    expect(row.locator(".badge")).not_to_have_css("color", BAD_FG)


def test_a_call_voided_by_the_cancel_is_shown_cancelled_not_requested(signed_in: Console, alice: Client) -> None:
    # Given a run cancelled while its memory-search call waited for a person
    run_id = waiting_run(alice, careful_agent(alice), "/search Still requested?")
    alice.call("POST", f"/v1/runs/{run_id}/cancel", {}, expect=200)
    # When its trace is opened
    page = signed_in.go(f"#/runs/{run_id}")
    # Then the call is shown cancelled, not as a request still waiting
    call = page.locator("[data-section=tool-calls] tbody tr")
    expect(call).to_have_count(1)
    expect(call.locator(".badge")).to_have_text("cancelled")
    expect(call).to_contain_text("the run was cancelled before an answer")
