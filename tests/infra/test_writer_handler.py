"""functions/writer/app.py: a thin, lazy entry point over mneme.runtime.Runtime."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest

from tests.support.sam_template import ROOT

WRITER = ROOT / "functions" / "writer" / "app.py"


def _load() -> ModuleType:
    # both handlers are called "app": load this one under its own name
    spec = importlib.util.spec_from_file_location("mneme_writer_app", WRITER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _FakeRuntime:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def handle(self, event: Any, context: Any = None) -> Any:
        self.events.append((event, context))
        return {"batchItemFailures": [{"itemIdentifier": "m-2"}]}


def _sqs_event() -> dict[str, Any]:
    return {
        "Records": [
            {"messageId": "m-1", "eventSource": "aws:sqs", "body": "{}"},
            {"messageId": "m-2", "eventSource": "aws:sqs", "body": "not json"},
        ]
    }


def test_importing_the_handler_loads_nothing_of_mneme() -> None:
    # Given a fresh interpreter with the layer on the path
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('writer_app', {str(WRITER)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('mneme', 'boto3', 'pydantic', 'opensearchpy'))\n"
        "print(','.join(heavy))\n"
    )
    env = {"PYTHONPATH": str(ROOT / "layers" / "mneme"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    # Then the module load imported no heavy package (cold start stays cheap until the first event)
    assert result.stdout.strip() == ""


def test_the_handler_builds_one_runtime_from_the_environment_and_returns_its_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the runtime factory replaced by a fake
    from mneme import runtime as runtime_module

    built: list[Any] = []
    fake = _FakeRuntime()

    def from_env(environ: Any) -> _FakeRuntime:
        built.append(environ)
        return fake

    monkeypatch.setattr(runtime_module.Runtime, "from_env", staticmethod(from_env))
    writer = _load()
    # When two batches arrive in one container
    first = writer.lambda_handler(_sqs_event(), "ctx")
    second = writer.lambda_handler(_sqs_event(), "ctx")
    # Then the runtime is built once, from os.environ, and its partial-failure answer is returned as is
    import os

    assert built == [os.environ]
    assert first == second == {"batchItemFailures": [{"itemIdentifier": "m-2"}]}
    assert fake.events == [(_sqs_event(), "ctx"), (_sqs_event(), "ctx")]
