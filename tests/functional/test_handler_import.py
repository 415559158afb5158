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
PRELOADED = (
    "botocore.session",
    "pydantic",
    "mneme.runtime",
    "mneme.api.run_routes",
    "mneme.engine.runs.service",
    "aws_lambda_powertools.event_handler.middlewares.openapi_validation",  # Powertools loads it on a first request
)
NEVER = ("boto3", "s3transfer")

_PROBE = """
# what the handler imports before it turns the collector off
import __future__, contextlib, gc, json, os, sys, typing
from collections import abc
sys.path[:0] = [{paths}]
collections = []
gc.collect()  # the young generation starts empty: compiling app.py alone does not fill it
gc.callbacks.append(lambda phase, info: collections.append(info["generation"]) if phase == "start" else None)
import app
during_import = list(collections)
loaded_after_import = sorted(sys.modules)
frozen = gc.get_freeze_count()
garbage = [[index] for index in range(50_000)]  # young containers: a collector that is on collects
event = json.load(open({health!r}))
response = app.lambda_handler(event, None)
print(json.dumps({{
    "after_import": loaded_after_import,
    "after_health": sorted(sys.modules),
    "response": response,
    "runtime_built": app._runtime is not None,
    "collections_during_import": during_import,
    "collections_after_import": len(collections) - len(during_import),
    "frozen": frozen,
    "clients": [type(o).__name__ for o in gc.get_objects() if type(o).__module__ == "botocore.client"],
}}))
"""


def _run(program: str, env: dict[str, str] | None = None, **fields: str) -> dict[str, object]:
    """The last JSON line ``program`` prints in a fresh interpreter (the handler and the layer on its path)."""
    paths = ", ".join(repr(str(ROOT / p)) for p in ("functions/run", "layers/mneme"))
    code = program.format(paths=paths, **fields)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _probe() -> dict[str, object]:
    return _run(_PROBE, health=str(ROOT / "events" / "http-health.json"))


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


def test_the_import_runs_without_a_collection_and_freezes_what_it_made() -> None:
    # When the handler module is imported in a fresh interpreter
    result = _probe()
    # Then no collection ran once the handler's code started (one may run while app.py's source is compiled,
    # before its first line: with the collector on it ran 133 on python3.11, 48 on python3.13), what the
    # import made is frozen, and the collector is on again afterwards
    during = result["collections_during_import"]
    assert isinstance(during, list) and len(during) <= 2, during
    assert isinstance(result["frozen"], int) and result["frozen"] > 20_000
    assert isinstance(result["collections_after_import"], int) and result["collections_after_import"] > 0


_BUILD = """
import gc, json, os, sys
sys.path[:0] = [{paths}]
import app
collections = []
gc.callbacks.append(lambda phase, info: collections.append(info["generation"]) if phase == "start" else None)
frozen_before = gc.get_freeze_count()
app._get_runtime()
print(json.dumps({{
    "collections_during_build": len(collections),
    "frozen_by_build": gc.get_freeze_count() - frozen_before,
    "collector_on": gc.isenabled(),
}}))
"""

_GARBAGE = """
import gc, json, os, sys
sys.path[:0] = [{paths}]
import app  # the init phase, as before the first event
from mneme.runtime import Runtime
gc.collect()
gc.disable()
runtime = Runtime.from_env(os.environ)  # kept: only what the build dropped is garbage
print(json.dumps({{"unreachable": gc.collect()}}))
"""


#: the deployed settings, enough to build a runtime (no AWS call is made while building it)
_SETTINGS = {
    "PATH": "/usr/bin:/bin",
    "AWS_ACCESS_KEY_ID": "t",
    "AWS_SECRET_ACCESS_KEY": "t",
    "AWS_REGION": "us-east-1",
    "MNEME_TABLE": "m",
    "MNEME_AUDIT_TABLE": "a",
    "MNEME_MODEL_PROVIDER": "offline",
    "MNEME_OPENSEARCH_ENDPOINT": "abc123.us-east-1.aoss.amazonaws.com",
}


def test_the_runtime_is_built_without_a_collection_and_frozen() -> None:
    # When the first event builds the runtime (settings, botocore clients, stores) in a fresh interpreter
    result = _run(_BUILD, _SETTINGS)
    # Then no collection ran during the build (with the collector on: 49 on python3.11, 5 to 8 young ones on
    # python3.13), what it made is frozen with the import's objects, and the collector is on again
    assert result["collections_during_build"] == 0
    assert isinstance(result["frozen_by_build"], int) and result["frozen_by_build"] > 10_000
    assert result["collector_on"] is True


def test_building_the_runtime_leaves_no_cyclic_garbage_to_freeze() -> None:
    # When a runtime is built after the handler's import, as the first event builds it, with the collector off,
    # and then collected (what freezing it would keep forever)
    result = _run(_GARBAGE, _SETTINGS)
    # Then the collection found nothing unreachable
    assert result["unreachable"] == 0
