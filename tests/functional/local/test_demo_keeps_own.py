"""``make demo`` leaves what alice made herself as it was (issue 33.6): the README's ``researcher`` and
``planner`` agents and her profile survive the demo, whose own agents and skill carry ``demo-`` ids."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.functional.local.support import REPO, Client, LocalServer, server_env

pytestmark = pytest.mark.slow

RESEARCHER = {"label": "Researcher", "description": "mine", "tools": ["memory-search"]}
PLANNER = {"label": "Planner", "description": "mine too", "delegates": ["researcher"], "tools": ["delegate-to-agent"]}
PROFILE = {"name": "Alice Own", "email": "own@example.com", "language": "fr", "timezone": "Europe/Paris"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    running = LocalServer(Path(tmp_path_factory.mktemp("demo-data"))).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def after_demo(server: LocalServer) -> tuple[Client, dict[str, Any], subprocess.CompletedProcess[str]]:
    alice = Client(server, server.token("alice"))
    alice.call("PUT", "/v1/agents/researcher", RESEARCHER, expect=200)
    alice.call("PUT", "/v1/agents/planner", PLANNER, expect=200)
    alice.call("PUT", "/v1/me/settings", PROFILE, expect=200)
    before = {path: alice.call("GET", path, expect=200) for path in _OWN}
    done = subprocess.run(
        [sys.executable, "-m", "mneme_local.demo"],
        cwd=REPO,
        env=server_env(server.data_dir, server.port),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    return alice, before, done


_OWN = ("/v1/agents/researcher", "/v1/agents/planner", "/v1/me/settings")


def test_the_demo_passes_beside_alices_own_agents(after_demo: Any) -> None:
    _alice, _before, done = after_demo
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "make demo: every check passed" in done.stdout


def test_alices_own_agents_and_profile_are_unchanged(after_demo: Any) -> None:
    alice, before, _done = after_demo
    assert {path: alice.call("GET", path, expect=200) for path in _OWN} == before


def test_the_demos_agents_are_its_own(after_demo: Any) -> None:
    alice, _before, _done = after_demo
    ids = {agent["agent_id"] for agent in alice.call("GET", "/v1/agents", expect=200)["agents"]}
    assert {"researcher", "planner", "demo-researcher", "demo-planner"} <= ids
