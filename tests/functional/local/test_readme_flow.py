"""The README's commands work as written (issue 33.6): the first five minutes, then "Events locally" —
``make event`` with the sample event, whose task ``weekly`` the README now creates first — run by bash against
a local server. ``make token`` / ``make event`` are run as the commands they wrap (the Makefile's recipes),
``localhost:8000`` is the test server's port, and ``make demo`` (its own test) is left out."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.local.support import REPO, LocalServer, server_env

pytestmark = pytest.mark.slow

README = REPO / "README.md"


def block_after(heading: str) -> str:
    """The first ```bash block after ``heading`` in the README."""
    text = README.read_text()
    start = text.index(heading)
    match = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert match is not None, heading
    return match.group(1)


def as_run_here(script: str, port: int) -> str:
    python = sys.executable
    kept = [line for line in script.splitlines() if not line.startswith("make demo")]
    return (
        "\n".join(kept)
        .replace("localhost:8000", f"localhost:{port}")
        .replace("make token USER=alice", f"{python} -m mneme_local.token --user alice")
        .replace("make event FILE=", f"{python} -m mneme_local.send_event ")
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    running = LocalServer(Path(tmp_path_factory.mktemp("readme-data"))).start()
    try:
        yield running
    finally:
        running.stop()


def test_the_readmes_event_step_runs_as_written(server: LocalServer) -> None:
    script = as_run_here(block_after("## The first five minutes"), server.port)
    script += "\n" + as_run_here(block_after("### Events locally"), server.port)
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=REPO,
        env=server_env(server.data_dir, server.port),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    sent = json.loads(done.stdout[done.stdout.rindex('{\n  "run_id"') :])  # make event's answer comes last
    assert sent["duplicate"] is False and sent["status"] == "succeeded", sent
