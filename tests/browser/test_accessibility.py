"""Accessibility of the console: labels on every control, keyboard navigation with a visible focus, text
contrast of at least WCAG AA (4.5:1, 3:1 for large text), one h1 per view — and the page stays light."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.browser.waiting import careful_agent, waiting_run
from tests.functional.local.support import Client, LocalServer

VIEWS = ["#/runs", "#/agents", "#/agents/+new", "#/skills/+new", "#/preview", "#/memory", "#/audit"]

UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.type !== 'hidden' && el.offsetParent !== null)
  .filter((el) => {
    const name = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
      || (el.labels && el.labels.length && [...el.labels].map((l) => l.textContent.trim()).join(''))
      || (el.tagName === 'BUTTON' && el.textContent.trim());
    return !name;
  })
  .map((el) => el.outerHTML.slice(0, 120))"""

LOW_CONTRAST = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const c = rgb(getComputedStyle(node).backgroundColor);
      if (c.length >= 3 && (c.length === 3 || c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const failures = [];
  for (const el of document.querySelectorAll('body *')) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join('');
    if (!text || el.offsetParent === null || el.closest('[disabled], .visually-hidden, option')) continue;
    const style = getComputedStyle(el);
    const [fg, bg] = [lum(rgb(style.color)), lum(background(el))];
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      failures.push(`${ratio.toFixed(2)} ${el.tagName}.${el.className}: ${text.slice(0, 40)}`);
    }
  }
  return failures;
}"""


@pytest.fixture(scope="module")
def delegated_run(server: LocalServer, alice: Client) -> str:
    """A finished delegating run of alice's (to look at a full trace)."""
    alice.call("PUT", "/v1/agents/a11y-helper", {"label": "A11y helper", "tools": ["memory-search"]}, expect=200)
    body = {"label": "A11y master", "tools": ["delegate-to-agent"], "delegates": ["a11y-helper"]}
    alice.call("PUT", "/v1/agents/a11y-master", body, expect=200)
    started = alice.call(
        "POST", "/v1/runs", {"agent_id": "a11y-master", "input": "/delegate a11y-helper :: hello"}, expect=202
    )
    assert alice.wait_run(started["run_id"], timeout=60)["status"] == "succeeded"
    return str(started["run_id"])


def _views(delegated_run: str) -> list[str]:
    return [*VIEWS, f"#/runs/{delegated_run}"]


def test_every_control_has_a_label_and_every_view_one_h1(signed_in: Console, delegated_run: str) -> None:
    page = signed_in.page
    missing: dict[str, Any] = {}
    for view in _views(delegated_run):
        page.goto(f"{signed_in.base}/{view}")
        expect(page.locator("main h1")).to_have_count(1)
        page.wait_for_load_state("networkidle")
        if found := page.evaluate(UNLABELLED):
            missing[view] = found
    assert missing == {}


def test_text_contrast_is_at_least_wcag_aa_in_every_view(signed_in: Console, delegated_run: str) -> None:
    page = signed_in.page
    failures: dict[str, Any] = {}
    for view in _views(delegated_run):
        page.goto(f"{signed_in.base}/{view}")
        page.locator("main h1").wait_for()
        page.wait_for_load_state("networkidle")
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        if found := page.evaluate(LOW_CONTRAST):
            failures[view] = found[:10]
    assert failures == {}


def test_the_keyboard_reaches_the_navigation_with_a_visible_focus_and_opens_a_view(signed_in: Console) -> None:
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible()
    # After a view opens, the focus is on its content; Shift+Tab walks back through the header
    expect(page.locator("main")).to_be_focused()
    memory_link = page.get_by_role("navigation", name="Main").get_by_role("link", name="Memory")
    for _ in range(6):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("() => document.activeElement.textContent") == "Memory":
            break
    expect(memory_link).to_be_focused()
    # The focused link shows a focus ring of at least 2px
    ring = "() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; }"
    outline = page.evaluate(ring)
    assert outline[0] != "none" and float(outline[1].removesuffix("px")) >= 2, outline
    # Enter opens the view, and the navigation says which page is current
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Memory", exact=True)).to_be_visible()
    expect(memory_link).to_have_attribute("aria-current", "page")


def test_the_skip_link_comes_first_shows_when_focused_and_moves_to_the_content(signed_in: Console) -> None:
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/memory")
    expect(page.get_by_role("heading", name="Memory", exact=True)).to_be_visible()
    first = page.evaluate(
        "() => [...document.querySelectorAll('a[href], button, input, select, textarea')]"
        ".find((el) => el.tabIndex >= 0).textContent"
    )
    assert first == "Skip to content"
    skip = page.get_by_role("link", name="Skip to content")
    skip.focus()
    assert page.evaluate("() => document.activeElement.getBoundingClientRect().left") >= 0  # on screen
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    expect(page.get_by_role("heading", name="Memory", exact=True)).to_be_visible()  # the view stays
    assert page.url.endswith("#/memory")


def test_the_delegation_tree_is_operated_with_the_keyboard(signed_in: Console, delegated_run: str) -> None:
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{delegated_run}")
    child = page.locator("[data-section=tree] button[data-depth='1']")
    expect(child).to_contain_text("a11y-helper")
    child.focus()
    page.keyboard.press("Enter")
    expect(child).to_have_attribute("aria-current", "true")
    expect(page.locator("[data-section=summary]")).to_contain_text("a11y-helper")
    expect(page.locator("[data-section=tree] button[data-depth='1']")).to_be_focused()  # focus kept over re-renders


def test_the_console_is_light(server: LocalServer) -> None:
    # Everything the console loads (HTML, CSS, every ES module) is served by the local server; no framework
    from mneme_local.console_assets import CONSOLE_DIR

    files = [p for p in CONSOLE_DIR.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    assert total < 175_000, f"{total} bytes in {len(files)} files"
    assert all(server.request("GET", "/console/" + p.relative_to(CONSOLE_DIR).as_posix()).status == 200 for p in files)


def test_the_cancel_control_and_the_memory_entry_panel_are_labelled_and_legible(
    signed_in: Console, alice: Client
) -> None:
    # the parts that only show in a state: a run in progress (cancel), an entry opened with its delete asked
    page = signed_in.page
    run_id = waiting_run(alice, careful_agent(alice), "/search Is this legible?")
    written = alice.call("POST", "/v1/memory/documents", {"namespace": "vector.user.alice.a11y", "content": "legible"})
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    expect(page.get_by_role("button", name="Cancel the run")).to_be_visible()
    checked = {"cancel": (page.evaluate(UNLABELLED), page.evaluate(LOW_CONTRAST))}
    page.goto(f"{signed_in.base}/#/memory")
    page.get_by_role("button", name="Browse vector.user.alice.a11y").click()
    page.get_by_role("button", name=f"Open memory entry {written['ids'][0]}").click()
    page.get_by_role("button", name="Delete…").click()
    expect(page.get_by_test_id("cascade")).to_be_visible()
    expect(page.get_by_role("button", name="Delete 1 entry")).to_be_focused()  # the keyboard lands on the choice
    checked["memory"] = (page.evaluate(UNLABELLED), page.evaluate(LOW_CONTRAST))
    alice.call("DELETE", f"/v1/memory/documents/{written['ids'][0]}", expect=204)  # alice's later traces stay tidy
    alice.call("POST", f"/v1/runs/{run_id}/cancel", {}, expect=200)
    assert checked == {"cancel": ([], []), "memory": ([], [])}
