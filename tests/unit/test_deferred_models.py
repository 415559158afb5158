"""Every mneme model builds its validator on first use, not at import (issue 14: a cold start defines ~85 models
and a run uses ~20), and a first use on many threads at once validates as a built model does.

Checked in fresh interpreters: this test process has long used most models."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.model_probe import MNEME_MODELS

ROOT = Path(__file__).resolve().parents[2]

_DEFINED = """
import importlib, json, pkgutil, sys
sys.path[:0] = [{layer!r}]
{mneme_models}
import mneme
for module in pkgutil.walk_packages(mneme.__path__, "mneme."):
    importlib.import_module(module.name)
mine = list(mneme_models().values())
print(json.dumps({{
    "models": len(mine),
    "not_deferred": sorted(m.__qualname__ for m in mine if not m.model_config.get("defer_build")),
    "built": sorted(m.__qualname__ for m in mine if m.__pydantic_complete__),
}}))
"""

_STRINGS = """
import importlib, json, pkgutil, sys
sys.path[:0] = [{layer!r}]
from pydantic._internal import _typing_extra
evaluated, real = [], _typing_extra.try_eval_type


def counting(value, *args, **kwargs):
    if isinstance(value, str):
        evaluated.append(value)
    return real(value, *args, **kwargs)


_typing_extra.try_eval_type = counting
import mneme
for module in pkgutil.walk_packages(mneme.__path__, "mneme."):
    importlib.import_module(module.name)
print(json.dumps(evaluated))
"""

_THREADS = """
import json, sys, threading
sys.path[:0] = [{layer!r}]
from mneme.models.memory import MemoryDocument
assert not MemoryDocument.__pydantic_complete__
barrier, results = threading.Barrier(8), []
good = {{"id": "d1", "owner_user_id": "alice", "namespace": "notes", "content": "x", "content_hash": "h",
    "created_at": "2026-12-01T00:00:00Z", "updated_at": "2026-12-01T00:00:00Z"}}


def first_use(i):
    barrier.wait()
    try:
        results.append(MemoryDocument.model_validate(good if i % 2 else {{**good, "content": 5}}).id)
    except Exception as error:
        results.append(type(error).__name__)


threads = [threading.Thread(target=first_use, args=(i,)) for i in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(sorted(results)))
"""


def _run(program: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", program.format(layer=str(ROOT / "layers" / "mneme"), mneme_models=MNEME_MODELS)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_mneme_model_is_deferred_and_importing_every_module_builds_few() -> None:
    # When every module of the mneme package is imported in a fresh interpreter
    result = _run(_DEFINED)
    assert isinstance(result, dict)
    # Then every model defers its build, and only those used as class-level defaults were built
    assert result["models"] > 80
    assert result["not_deferred"] == []
    assert len(result["built"]) < result["models"] // 4, result["built"]


def test_defining_the_models_evaluates_no_annotation_from_a_string() -> None:
    # When every module is imported in a fresh interpreter, pydantic's evaluation of annotations counted
    evaluated = _run(_STRINGS)
    # Then no model field's annotation was a string to compile and evaluate: the model modules do without
    # ``from __future__ import annotations`` (590 evaluations before, ~15 ms of a cold start)
    assert evaluated == []


def test_a_first_use_on_eight_threads_at_once_validates_as_a_built_model() -> None:
    # When eight threads validate a never-built model at the same instant, half of them with a bad document
    results = _run(_THREADS)
    # Then the good ones validate and the bad ones are refused, none seeing a half-built validator
    assert results == ["ValidationError"] * 4 + ["d1"] * 4
