"""The Lambda handler module imports what a run needs in Lambda's init phase (full vCPU) but builds nothing:
no runtime, no settings read, no client (issue 14: work moved into init); boto3 is never imported, and the
health check answers without building the runtime.

Checked in a fresh interpreter, since this test process has long imported all of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRELOADED = ("botocore.session", "pydantic", "mneme.runtime", "mneme.api.run_routes", "mneme.engine.service")
NEVER = ("boto3", "s3transfer")

_PROBE = """
import gc, json, sys
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
    "clients": [type(o).__name__ for o in gc.get_objects() if type(o).__module__ == "botocore.client"],
}}))
"""


def _probe() -> dict[str, object]:
    paths = ", ".join(repr(str(ROOT / p)) for p in ("functions/run", "layers/mneme"))
    code = _PROBE.format(paths=paths, health=str(ROOT / "events" / "http-health.json"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _loaded(modules: object, names: tuple[str, ...]) -> list[str]:
    assert isinstance(modules, list)
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


def test_importing_the_handler_preloads_the_run_path_and_builds_nothing() -> None:
    # When the handler module is imported in a fresh interpreter
    result = _probe()
    # Then the modules of a run are loaded (init phase), boto3 is not, and no runtime or client exists
    assert sorted({m for m in _loaded(result["after_import"], PRELOADED) if m in PRELOADED}) == sorted(PRELOADED)
    assert _loaded(result["after_import"], NEVER) == []
    assert result["runtime_built"] is False and result["clients"] == []


def test_the_health_check_answers_without_building_the_runtime() -> None:
    # When the health event is handled right after the import
    result = _probe()
    # Then it answers 200, no runtime was built, and still nothing heavy was imported
    response = result["response"]
    assert isinstance(response, dict)
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["status"] == "ok"
    assert result["runtime_built"] is False and result["clients"] == []
    assert _loaded(result["after_health"], NEVER) == []
