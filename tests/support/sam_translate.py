"""template.yaml as CloudFormation receives it: translated by aws-sam-translator (offline, cached).

The translator lives in the SAM CLI's environment (``.venv-sam``, created by ``make setup``); it pins a
pydantic the project does not use, so it runs there as a subprocess (:mod:`tests.support.translate_template`).
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from typing import Any

import pytest

from tests.support.sam_template import ROOT, TEMPLATE

SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"
SCRIPT = ROOT / "tests" / "support" / "translate_template.py"


@cache
def translated(region: str = "us-east-1") -> dict[str, Any]:
    """The translated template (every ``AWS::Serverless::*`` resource expanded into native ones)."""
    if not SAM_PYTHON.exists():
        pytest.fail(f"{SAM_PYTHON} is missing: run `make setup` (the SAM CLI environment holds aws-sam-translator)")
    env = {**os.environ, "AWS_DEFAULT_REGION": region, "SAM_CLI_TELEMETRY": "0"}
    done = subprocess.run(
        [str(SAM_PYTHON), str(SCRIPT), str(TEMPLATE), region],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"aws-sam-translator refused template.yaml:\n{done.stderr[-4000:]}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data
