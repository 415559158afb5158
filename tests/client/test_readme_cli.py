"""The README's first five minutes with the CLI, run as written (bash) against a local server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

from mneme_local.token import issue
from tests.functional.local.support import REPO, LocalServer


def _cli_block() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The same with the CLI", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_readme_cli_walkthrough_runs_as_written(server: LocalServer, tmp_path: Path) -> None:
    block = _cli_block()
    assert block.startswith("source .venv/bin/activate")
    user = f"readme-{uuid.uuid4().hex[:6]}"
    script = block.replace("source .venv/bin/activate", "").replace("alice", user)
    shim = tmp_path / "bin" / "mneme"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mneme_client.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    issue(server.data_dir, "warm-up")  # the key exists once the server ran
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_")}
    env |= {"PATH": f"{shim.parent}{os.pathsep}{env.get('PATH', '')}", "MNEME_URL": server.base}
    env |= {"MNEME_DATA_DIR": str(server.data_dir), "PYTHONPATH": str(REPO / "clients/python/src")}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"status": "ok"' in out
    assert "The Apollo review is due on March 15." in out  # the search found it
    assert out.count("] completed succeeded") >= 3  # two runs followed, the second with its sub-agent's events
    assert "delegation_finished researcher" in out
    exported = (tmp_path / f"{user}-memory.ndjson").read_text(encoding="utf-8")
    assert "The Apollo review is due on March 15." in exported
