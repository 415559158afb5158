"""``make event``: an EventBridge event sent to the running local server (the local stand-in of the stack's
event bus), through the same ``Runtime.handle`` the bus invokes on AWS."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.functional.local.support import REPO, Client, LocalServer, server_env

pytestmark = pytest.mark.slow

EVENT_FILE = REPO / "events" / "eventbridge-run-requested.json"


def _make_event(server: LocalServer, path: Path) -> subprocess.CompletedProcess[str]:
    """What ``make event FILE=...`` runs."""
    return subprocess.run(
        [sys.executable, "-m", "mneme_local.send_event", str(path)],
        cwd=REPO,
        env=server_env(server.data_dir, server.port),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def alice(server: LocalServer) -> Client:
    client = Client(server, server.token("alice"))
    client.call("PUT", "/v1/agents/researcher", {"label": "Researcher", "model": {"provider": "offline"}}, expect=200)
    client.call("PUT", "/v1/agents/researcher/tasks/weekly", {"name": "Weekly"}, expect=200)
    return client


def test_the_sample_event_runs_once_however_often_it_is_sent(server: LocalServer, alice: Client) -> None:
    # When the sample event file is sent twice (it carries an id: the second send is a redelivery)
    first, second = _make_event(server, EVENT_FILE), _make_event(server, EVENT_FILE)
    # Then both succeed and name one run, which is alice's and finished
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    assert (one["duplicate"], two["duplicate"]) == (False, True)
    assert one["run_id"] == two["run_id"]
    run: dict[str, Any] = alice.call("GET", f"/v1/runs/{one['run_id']}", expect=200)
    assert (run["status"], run["agent_id"], run["task_id"]) == ("succeeded", "researcher", "weekly")
    assert run["output"] == "offline: Prepare my morning digest."


def test_a_rejected_event_fails_with_the_friendly_message(server: LocalServer, tmp_path: Path, alice: Client) -> None:
    event = json.loads(EVENT_FILE.read_text())
    event.pop("id")
    event["detail"]["agent_id"] = "nobody"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(event))
    done = _make_event(server, path)
    assert done.returncode == 1
    answer = json.loads(done.stderr)
    assert answer["error"] == "event_rejected"
    assert answer["message"].startswith("mneme.RunRequested event ") and "nobody" in answer["message"]


def test_the_route_needs_an_admin_token_and_is_not_part_of_the_api(server: LocalServer) -> None:
    body = json.loads(EVENT_FILE.read_text())
    assert server.request("POST", "/_local/events", body).status == 401
    assert server.request("POST", "/_local/events", body, token=server.token("mallory")).status == 403
    paths = server.request("GET", "/v1/openapi.json").json()["paths"]
    assert not [p for p in paths if "_local" in p]
