"""A run waiting for a tool approval, met on the command line: what it prints must be enough to answer it.

Before, ``mneme run … --follow`` printed ``answer with: mneme approve RUN CALL_ID`` and never the run's id (a
followed run's id was printed only once it ended, and it waits until answered), and ``mneme status RUN`` of a
waiting run printed ``waiting_approval`` without the call it waits for (``GET /v1/runs/{id}`` lists it)."""

from __future__ import annotations

import io
import json
import threading
import time
import uuid
from pathlib import Path

import pytest

from mneme_client import Client, cli, local_token
from tests.functional.local.support import LocalServer


@pytest.fixture
def client(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> Client:
    """A fresh user's client, with ``$MNEME_URL`` / ``$MNEME_TOKEN`` set for the command line, and an agent
    ``careful`` that asks before each tool call."""
    token = local_token(f"cli-{uuid.uuid4().hex[:8]}", folder=str(server.data_dir))
    monkeypatch.setenv("MNEME_URL", server.base)
    monkeypatch.setenv("MNEME_TOKEN", token)
    made = Client(server.base, token)
    made.put_agent("careful", {"label": "Careful", "tools": ["memory-search"], "tool_approval_default": "prompt"})
    return made


def _mneme(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def _pending(client: Client, run_id: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        run = client.get_run(run_id)
        if run.pending_approvals:
            return run.pending_approvals[0].call_id
        time.sleep(0.1)
    raise AssertionError("the run never waited for an approval")


def _wait_for(predicate: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.1)


def test_following_a_run_names_the_command_that_answers_its_approval(client: Client, tmp_path: Path) -> None:
    out = io.StringIO()
    follower = threading.Thread(target=lambda: cli.main(["run", "careful", "/search apollo", "--follow"], out=out))
    follower.start()
    try:
        _wait_for(lambda: "approval_requested" in out.getvalue())
        run_id = client.list_runs().runs[0].run_id
        call_id = _pending(client, run_id)
        asked = next(line for line in out.getvalue().splitlines() if "approval_requested" in line)
        assert f"mneme approve {run_id} {call_id}" in asked
        assert "RUN" not in asked and "CALL_ID" not in asked
    finally:
        for run in client.list_runs().runs:  # let the follower end whatever was asserted
            if run.status == "waiting_approval":
                client.answer_approval(run.run_id, _pending(client, run.run_id), "deny")
        follower.join(30)


def test_status_of_a_waiting_run_names_each_call_and_the_command_that_answers_it(client: Client) -> None:
    run_id = client.start_run("careful", "/search apollo").run_id
    call_id = _pending(client, run_id)
    code, printed = _mneme("status", run_id)
    lines = printed.splitlines()
    assert code == 0 and lines[0] == f"run {run_id}: waiting_approval"
    waiting = [line for line in lines if call_id in line]
    assert len(waiting) == 1 and "memory-search" in waiting[0] and '"query": "apollo"' in waiting[0]
    assert f"mneme approve {run_id} {call_id}" in waiting[0]
    assert lines[-1].startswith("usage: input ")
    # the JSON is the API's, unchanged
    assert json.loads(_mneme("--json", "status", run_id)[1])["pending_approvals"][0]["call_id"] == call_id


def test_status_of_a_finished_run_names_no_approval(client: Client) -> None:
    client.put_agent("quick", {"label": "Quick", "tools": ["memory-search"]})
    run_id = client.start_run("quick", "/search apollo").run_id
    _wait_for(lambda: client.get_run(run_id).status == "succeeded")
    printed = _mneme("status", run_id)[1]
    assert "mneme approve" not in printed and "approval" not in printed
