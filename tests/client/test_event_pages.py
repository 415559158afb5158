"""``mneme events RUN`` (and ``Client.all_events``) print every event the run has, not its first page only."""

from __future__ import annotations

import io
from typing import Any

import httpx
import pytest

from mneme_client import Client, cli
from mneme_client.models import EventsView


def _events(first: int, last: int, run_id: str = "r1") -> list[dict[str, Any]]:
    return [{"seq": n, "type": "step", "at": "now", "run_id": run_id} for n in range(first, last + 1)]


def _pages(tree: bool) -> dict[str | None, EventsView]:
    """A run's events in pages of 1,000 (the client's page size): a run's last page has a null cursor, a tree's
    cursor never is null (its last page is the one that brings nothing)."""
    pages = {
        None: EventsView(events=_events(1, 1000), cursor="c1"),
        "c1": EventsView(events=_events(1001, 1500), cursor="c2" if tree else None),
    }
    return pages | ({"c2": EventsView(events=[], cursor="c2")} if tree else {})


@pytest.mark.parametrize("tree", [False, True])
def test_the_events_command_prints_every_page(
    tree: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pages, asked = _pages(tree), list[str | None]()

    def run_events(self: Client, run_id: str, *, cursor: str | None = None, tree: bool = False) -> EventsView:
        asked.append(cursor)
        return pages[cursor]

    monkeypatch.setattr(Client, "run_events", run_events)
    out = io.StringIO()
    argv = ["--url", "http://mneme.test", "--token", "t", "events", "r1", *(["--tree"] if tree else [])]
    assert cli.main(argv, out=out) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == 1500 and lines[0].startswith("[1] ") and lines[-1].startswith("[1500] ")
    assert asked == ([None, "c1", "c2"] if tree else [None, "c1"])


def test_all_events_over_http_follows_the_cursors_and_answers_the_last_one() -> None:
    pages = _pages(tree=True)

    def answer(request: httpx.Request) -> httpx.Response:
        page = pages[request.url.params.get("cursor")]
        return httpx.Response(200, content=page.model_dump_json())

    with Client("http://mneme.test", "t", transport=httpx.MockTransport(answer)) as client:
        every = client.all_events("r1", tree=True)
    assert [e.seq for e in every.events] == list(range(1, 1501))
    assert every.cursor == "c2"
