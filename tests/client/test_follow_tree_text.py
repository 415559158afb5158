"""``mneme run … --follow --tree`` indents a run's model text by its depth, as it indents the run's events: a
child's text was printed at the left margin, under its parent's ``delegation_started``, before the child's own
(indented) events — it read as the parent's text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mneme_client import cli
from mneme_client.models import EventView
from mneme_client.render import FollowPrinter
from mneme_client.sse import TextDelta
from tests.functional.local.support import LocalServer


def _event(seq: int, kind: str, **fields: object) -> EventView:
    return EventView.model_validate({"seq": seq, "type": kind, "at": "now", **fields})


def _printed(*items: EventView | TextDelta) -> list[str]:
    out = io.StringIO()
    printer = FollowPrinter(out, run_id="root")
    for item in items:
        printer(item)
    return out.getvalue().splitlines()


STARTED = _event(6, "delegation_started", agent_id="helper", child_run_id="kid", depth=1, run_id="root", run_depth=0)
KID_STARTED = _event(1, "run_started", run_id="kid", run_depth=1, depth=1)


def test_a_childs_text_is_indented_by_its_depth_every_line_of_it() -> None:
    lines = _printed(STARTED, TextDelta("kid", "first ", 1), TextDelta("kid", "line\nsecond line", 1), KID_STARTED)
    assert lines[1:] == ["  first line", "  second line", "  [1] run_started"]


def test_a_childs_text_without_a_depth_takes_the_one_its_delegation_named() -> None:
    assert _printed(STARTED, TextDelta("kid", "hello"))[1] == "  hello"


def test_the_roots_text_stays_at_the_margin_and_each_runs_text_starts_its_own_line() -> None:
    lines = _printed(STARTED, TextDelta("kid", "child says", 1), TextDelta("root", "parent says", 0))
    assert lines[1:] == ["  child says", "parent says"]


def test_text_ending_in_a_line_break_leaves_no_blank_line_before_the_next_event() -> None:
    assert _printed(TextDelta("root", "done\n"), _event(2, "completed", status="succeeded")) == [
        "done",
        "[2] completed succeeded",
    ]


def test_run_follow_tree_indents_the_childs_text_over_http(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MNEME_URL", server.base)
    monkeypatch.setenv("MNEME_DATA_DIR", str(server.data_dir))
    token = io.StringIO()
    cli.main(["token", "tree-text"], out=token)
    monkeypatch.setenv("MNEME_TOKEN", token.getvalue().strip())
    for agent_id, body in [
        ("researcher", {"label": "Researcher"}),
        ("planner", {"label": "Planner", "tools": ["delegate-to-agent"], "delegates": ["researcher"]}),
    ]:
        (tmp_path / f"{agent_id}.json").write_text(json.dumps(body), encoding="utf-8")
        assert cli.main(["agents", "put", agent_id, str(tmp_path / f"{agent_id}.json")], out=io.StringIO()) == 0
    out = io.StringIO()
    assert cli.main(["run", "planner", "/delegate researcher :: hello there", "--follow", "--tree"], out=out) == 0
    lines = out.getvalue().splitlines()
    started = next(i for i, line in enumerate(lines) if " delegation_started " in line)
    assert lines[started + 1 : started + 3] == ["  offline: hello there", "  [1] run_started"]
