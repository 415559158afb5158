"""The Lambda handler module is cheap to import (cold start): no boto3, pydantic, Powertools or engine
modules until an event needs them, and the health check answers without building the runtime.

Checked in a fresh interpreter, since this test process has long imported all of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("boto3", "botocore", "pydantic", "aws_lambda_powertools", "mneme.engine", "mneme.runtime", "opensearchpy")

_PROBE = """
import json, sys
sys.path[:0] = [{paths}]
import app
loaded_after_import = sorted(sys.modules)
event = json.load(open({health!r}))
response = app.lambda_handler(event, None)
print(json.dumps({{
    "after_import": loaded_after_import,
    "after_health": sorted(sys.modules),
    "response": response,
    "runtime_built": app._runtime is not None,
}}))
"""


def _probe() -> dict[str, object]:
    paths = ", ".join(repr(str(ROOT / p)) for p in ("functions/run", "layers/mneme"))
    code = _PROBE.format(paths=paths, health=str(ROOT / "events" / "http-health.json"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _heavy(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_importing_the_handler_loads_no_heavy_module() -> None:
    # When the handler module is imported in a fresh interpreter
    result = _probe()
    # Then none of boto3, pydantic, Powertools or the engine was imported
    assert _heavy(result["after_import"]) == []


def test_the_health_check_answers_without_building_the_runtime() -> None:
    # When the health event is handled right after the import
    result = _probe()
    # Then it answers 200, no runtime was built, and still nothing heavy was imported
    response = result["response"]
    assert isinstance(response, dict)
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["status"] == "ok"
    assert result["runtime_built"] is False
    assert _heavy(result["after_health"]) == []
