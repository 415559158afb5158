"""Explanations in the console (issue 35): the memory page's search with "Explain" shows each hit's score
parts and the entries that were not recalled with their reason; a run's trace says why an auto-write was not
made."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.browser.conftest import fresh_user as _user
from tests.functional.local.support import LocalServer

APOLLO = "The Apollo review is due on March 15."


def test_a_search_with_explain_shows_the_score_parts_and_why_an_entry_was_not_recalled(
    console: Console, server: LocalServer
) -> None:
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.memory"
    write = {"namespace": namespace, "content": "The Apollo review is due on March 15."}
    kept = client.call("POST", "/v1/memory/documents", write, expect=201)["ids"][0]
    write["content"] = "The Apollo review was due on March 1."
    gone = client.call("POST", "/v1/memory/documents", write, expect=201)["ids"][0]
    client.call("DELETE", f"/v1/memory/documents/{gone}")
    page = console.page
    page.goto(f"{console.base}/#/memory")
    form = page.locator("[data-form=memory-search]")
    form.get_by_label("Query").fill("When is the Apollo review due?")
    form.get_by_label("Explain (what was not recalled, and why)").check()
    form.get_by_role("button", name="Search").click()
    panel = page.get_by_test_id("memory-explanation")
    expect(panel.get_by_test_id("explained-hits").locator(f"tr[data-memory='{kept}']")).to_be_visible()
    dropped = panel.get_by_test_id("explained-dropped").locator(f"tr[data-memory='{gone}']")
    expect(dropped).to_have_attribute("data-reason", "deleted")
    expect(dropped).to_contain_text("deleted")
    console.screenshot("memory-explain")


def test_a_search_without_explain_shows_no_explanation(console: Console, server: LocalServer) -> None:
    client, user = _user(server, console)
    write = {"namespace": f"vector.user.{user}.memory", "content": "The Apollo review is due on March 15."}
    client.call("POST", "/v1/memory/documents", write, expect=201)
    page = console.page
    page.goto(f"{console.base}/#/memory")
    form = page.locator("[data-form=memory-search]")
    form.get_by_label("Query").fill("When is the Apollo review due?")
    form.get_by_role("button", name="Search").click()
    expect(page.get_by_test_id("memory-results")).to_be_visible()
    expect(page.get_by_test_id("memory-explanation")).to_have_count(0)


def test_the_trace_says_why_an_auto_write_was_not_made(console: Console, server: LocalServer) -> None:
    client, _ = _user(server, console)
    agent = f"writer-{uuid.uuid4().hex[:6]}"
    client.call("PUT", f"/v1/agents/{agent}", {"label": agent, "memory_policy": {"allow_write": True}}, expect=200)
    run_id = client.call("POST", "/v1/runs", {"agent_id": agent, "input": "hello there"}, expect=200)["run_id"]
    assert client.wait_run(run_id)["status"] == "succeeded"
    console.page.goto(f"{console.base}/#/runs/{run_id}")
    timeline = console.page.locator("[data-section=timeline]")
    expect(timeline).to_contain_text("auto-write skipped (run_input): under 80 characters")


def _explain(console: Console, query: str) -> None:
    page = console.page
    page.goto(f"{console.base}/#/memory")
    form = page.locator("[data-form=memory-search]")
    form.get_by_label("Query").fill(query)
    form.get_by_label("Explain (what was not recalled, and why)").check()
    form.get_by_role("button", name="Search").click()
    expect(page.get_by_test_id("memory-explanation")).to_be_visible()


def _explain_over(console: Console, server: LocalServer, memory: str, query: str) -> None:
    """A new user's one memory, then ``query`` explained."""
    client, user = _user(server, console)
    write = {"namespace": f"vector.user.{user}.memory", "content": memory}
    client.call("POST", "/v1/memory/documents", write, expect=201)
    _explain(console, query)


def test_an_explained_question_naming_a_speaker_says_what_the_name_alone_explained(
    console: Console, server: LocalServer
) -> None:
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.memory"
    for content in ("Caroline: Take care, Melanie!", "Caroline: I took a pottery class downtown."):
        client.call("POST", "/v1/memory/documents", {"namespace": namespace, "content": content}, expect=201)
    _explain(console, "Which submarine did Caroline serve on?")
    note = console.page.get_by_test_id("name-lift")
    expect(note).to_contain_text("The question names Caroline, a speaker of these memories")
    expect(note).to_contain_text("its vector part is ranked without the name")
    expect(note).to_contain_text("% of its vector confidence")


def test_an_explained_question_naming_no_speaker_says_nothing_of_names(console: Console, server: LocalServer) -> None:
    _explain_over(console, server, "Caroline: I took a pottery class downtown.", "Where is the nearest pottery class?")
    expect(console.page.get_by_test_id("name-lift")).to_have_count(0)


def test_an_explained_question_about_someone_no_memory_mentions_says_so(console: Console, server: LocalServer) -> None:
    _explain_over(console, server, "Melanie: What do you cook these days?", "What did Penelope cook for dinner?")
    note = console.page.get_by_test_id("name-lift")
    expect(note).to_contain_text("The question names Penelope, whom no memory you can read mentions")


@pytest.mark.parametrize(
    ("question", "says"),
    [  # nothing vouches for the first, so nothing can be recalled; the memory answers the second
        (
            "What is the best recipe for banana bread?",
            ("keyword coverage", "under min_score 0.3500: nothing can be recalled"),
        ),
        ("When is the Apollo review due?", ("best cosine", "before its rule bonus and recency")),
    ],
)
def test_an_explained_question_says_what_vouched_for_it(
    console: Console, server: LocalServer, question: str, says: tuple[str, str]
) -> None:
    _explain_over(console, server, APOLLO, question)
    note = console.page.get_by_test_id("confidence")
    for text in says:
        expect(note).to_contain_text(text)


def test_an_explained_note_that_says_nothing_of_the_question_says_so(console: Console, server: LocalServer) -> None:
    client, user = _user(server, console)
    namespace = f"vector.user.{user}.memory"
    client.call("POST", "/v1/memory/documents", {"namespace": namespace, "content": APOLLO}, expect=201)
    volvo = {"namespace": namespace, "content": "Tom drives an old Volvo."}
    quiet = client.call("POST", "/v1/memory/documents", volvo, expect=201)["ids"][0]
    _explain(console, "When is the Apollo review due?")
    dropped = console.page.get_by_test_id("explained-dropped").locator(f"tr[data-memory='{quiet}']")
    expect(dropped).to_have_attribute("data-reason", "below_floor")
    expect(dropped).to_contain_text("a note that shares no word with the question and is not like it")


def test_an_explained_question_over_a_user_s_own_note_says_it_stands_out(console: Console, server: LocalServer) -> None:
    _explain_over(console, server, "I work as a nurse at the city hospital.", "What do I do for a living?")
    note = console.page.get_by_test_id("confidence")
    expect(note).to_contain_text("standing out of the other memories")
    expect(note).to_contain_text("before its rule bonus and recency")  # it vouches: the note can be recalled
