"""Following a run in the trace view by long-poll (console/js/live.js): few requests while nothing happens,
an event shown as soon as it happens without a reload, and the plain poll when the long-poll fails."""

from __future__ import annotations

from playwright.sync_api import Route, expect

from tests.browser.conftest import Console
from tests.browser.waiting import careful_agent, waiting_run
from tests.functional.local.support import Client

WATCH_SECONDS = 6
#: what the plain poll costs for a waiting run: GET the run, its events and its context, once a second
POLL_REQUESTS = 3 * WATCH_SECONDS


def _api_calls(console: Console) -> list[str]:
    calls: list[str] = []
    console.page.on("request", lambda request: calls.append(request.url) if "/v1/" in request.url else None)
    return calls


def _pending_call_id(alice: Client, run_id: str) -> str:
    events = alice.call("GET", f"/v1/runs/{run_id}/events", expect=200)["events"]
    return str(next(e for e in events if e["type"] == "approval_requested")["calls"][0]["call_id"])


def _long_polls(calls: list[str], run_id: str) -> list[str]:
    return [c for c in calls if f"/v1/runs/{run_id}/events?tree=true" in c and "wait=20" in c]


def test_a_waiting_run_is_followed_with_far_fewer_requests_than_polling(signed_in: Console, alice: Client) -> None:
    # Given a run that waits for a person and stays unfinished, open in the trace
    run_id = waiting_run(alice, careful_agent(alice), "/search Anything about long-polls?")
    page = signed_in.page
    opening = _api_calls(signed_in)
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.get_by_test_id("live")).to_contain_text("Live")
    page.wait_for_timeout(500)  # the follow has taken its position and holds its long-poll
    # When nothing happens for six seconds
    calls = _api_calls(signed_in)
    page.wait_for_timeout(WATCH_SECONDS * 1000)
    # Then one request was held open for the whole tree (wait=20), and in six seconds it asked almost
    # nothing more (the plain poll would have asked 18 times), and only about this run
    assert len(_long_polls(opening, run_id)) == 1, opening
    assert len(calls) <= POLL_REQUESTS // 6, calls
    assert all(c.startswith(f"{signed_in.base}/v1/runs/{run_id}") for c in calls), calls
    # And the page still follows the run
    expect(page.get_by_test_id("live")).to_contain_text("Live")


def test_an_event_is_shown_as_soon_as_it_happens_without_a_reload(signed_in: Console, alice: Client) -> None:
    # Given the trace of a waiting run, followed by its held long-poll
    # (a question no memory of the session answers: its hits' texts would be read too, once each)
    run_id = waiting_run(alice, careful_agent(alice), "/search Anything about long-polls today?")
    page = signed_in.page
    opening = _api_calls(signed_in)
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.locator("[data-section=approvals]")).to_contain_text("memory-search")
    page.wait_for_timeout(500)
    assert len(_long_polls(opening, run_id)) == 1, opening
    page.evaluate("window.__sameDocument = true")
    calls = _api_calls(signed_in)
    # When the approval is answered elsewhere (through the API, not on this page)
    alice.call("POST", f"/v1/runs/{run_id}/approvals", {"call_id": _pending_call_id(alice, run_id), "decision": "once"})
    # Then the page shows the run finish by itself, in the same document, from the held long-poll's answer:
    # one load of the run, its events and its context — and nothing more once the run is final
    expect(page.get_by_test_id("status")).to_have_text("succeeded", timeout=10_000)
    expect(page.locator("[data-section=approvals]")).to_have_count(0)
    expect(page.get_by_test_id("live")).to_have_text("")
    assert page.evaluate("window.__sameDocument") is True
    page.wait_for_timeout(1500)
    base = f"{signed_in.base}/v1/runs/{run_id}"
    assert sorted(calls) == [base, f"{base}/context", f"{base}/events"], calls


def test_when_the_long_poll_fails_the_trace_falls_back_to_polling(signed_in: Console, alice: Client) -> None:
    # Given a server whose long-poll answers 503 (every request with wait= fails)
    page = signed_in.page

    def refuse(route: Route) -> None:
        if "wait=" in route.request.url:
            route.fulfill(status=503, content_type="application/json", body='{"error": "busy", "message": "busy"}')
        else:
            route.fallback()

    page.route("**/v1/runs/*/events?*", refuse)
    run_id = waiting_run(alice, careful_agent(alice), "/search What if the long-poll fails?")
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.locator("[data-section=approvals]")).to_contain_text("memory-search")
    # When it is watched for three seconds
    calls = _api_calls(signed_in)
    page.wait_for_timeout(3000)
    # Then it polls the run about once a second instead
    polls = [c for c in calls if c == f"{signed_in.base}/v1/runs/{run_id}"]
    assert 2 <= len(polls) <= 4, calls
    # And an answer given elsewhere still shows up
    alice.call("POST", f"/v1/runs/{run_id}/approvals", {"call_id": _pending_call_id(alice, run_id), "decision": "once"})
    expect(page.get_by_test_id("status")).to_have_text("succeeded", timeout=10_000)
