"""The round-trip bench counts a call as mneme's by the module whose code made it, never by the file's path
(bench/_calls.py): a checkout under a folder named ``mneme`` counted the local Step Functions emulation's
calls as mneme's own (51 calls per delegation hop instead of 48)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
Call = importlib.import_module("_calls").Call  # bench/ is no package


def _code(module: str, filename: str, source: str) -> dict[str, Any]:
    """The functions of ``source`` as if defined in ``module``, loaded from ``filename``."""
    namespace: dict[str, Any] = {"__name__": module, "Call": Call}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def test_a_call_made_by_mneme_code_names_its_store_and_engine_whatever_the_files_path() -> None:
    # When mneme's engine calls a store method, both loaded from a path without any "mneme" folder in it
    store = _code(
        "mneme.adapters.dynamo.run_store", "/srv/app/a/run_store.py", "def put_run():\n    return Call('x', 0.0)\n"
    )
    engine = _code("mneme.engine.runs.finish", "/srv/app/b/finish.py", "def commit(put):\n    return put()\n")
    call = engine["commit"](store["put_run"])
    # Then the call is mneme's, named by the store method and the engine function above it
    assert call.origin == "run_store.put_run ← finish.commit"


def test_a_call_made_outside_mneme_is_not_mneme_s_even_from_a_path_under_a_mneme_folder() -> None:
    # When the local Step Functions emulation (mneme_local) makes a call from a checkout under /…/mneme/
    emulation = _code(
        "mneme_local.sfn_emulation",
        "/home/dev/mneme/local/mneme_local/sfn_emulation.py",
        "def invoke():\n    return Call('lambda:Invoke', 0.0)\n",
    )
    moto = _code("moto.stepfunctions.models", "/home/dev/mneme/.venv/lib/moto/stepfunctions/models.py",
                 "def run(step):\n    return step()\n")  # fmt: skip
    # Then the call has no mneme origin (the bench counts it as the service's, not the run's)
    assert moto["run"](emulation["invoke"]).origin == ""
