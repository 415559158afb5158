"""functions/writer/app.py: a thin, lazy entry point over the writer's own ports (not the run function's)."""

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


class _FakePorts:
    """Stands in for the writer's ports: ``write_batch`` is replaced, so only identity matters."""


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


def test_the_handler_builds_the_writer_ports_once_and_answers_the_batch_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the writer composition and the batch writer replaced by fakes
    from mneme import composition
    from mneme.engine.memory_io import writer as writer_module

    built: list[Any] = []
    ports = _FakePorts()
    batches: list[Any] = []

    def build_writer(settings: Any) -> _FakePorts:
        built.append(settings)
        return ports

    def write_batch(given: Any, records: Any) -> dict[str, Any]:
        batches.append((given, records))
        return {"batchItemFailures": [{"itemIdentifier": "m-2"}]}

    monkeypatch.setattr(composition, "build_writer", build_writer)
    monkeypatch.setattr(writer_module, "write_batch", write_batch)
    writer = _load()
    # When two batches arrive in one container
    first = writer.lambda_handler(_sqs_event(), "ctx")
    second = writer.lambda_handler(_sqs_event(), "ctx")
    # Then the ports are built once (from validated settings), and the partial-failure answer is returned as is
    from mneme.settings import Settings

    assert len(built) == 1 and isinstance(built[0], Settings)
    assert first == second == {"batchItemFailures": [{"itemIdentifier": "m-2"}]}
    assert batches == [(ports, _sqs_event()["Records"])] * 2


def test_the_writer_composition_creates_no_run_function_clients() -> None:
    # Given a session that records the clients created
    from mneme.composition import build_writer
    from mneme.settings import Settings

    class Session:
        def __init__(self) -> None:
            self.services: list[str] = []

        def client(self, service: str, **_: Any) -> Any:
            self.services.append(service)
            return object()

        def get_credentials(self) -> Any:
            from botocore.credentials import Credentials

            return Credentials("key", "secret")

    session = Session()
    settings = Settings.model_validate({"MNEME_AUDIT_TABLE": "audit", "MNEME_OPENSEARCH_ENDPOINT": "https://x.aoss"})
    ports = build_writer(settings, session)
    # Then only DynamoDB (the audit and main tables) and Bedrock clients exist — one for embeddings (short
    # reads), one for extraction calls (the model's read timeout): no SQS, Step Functions, Lambda
    assert sorted(session.services) == ["bedrock-runtime", "bedrock-runtime", "dynamodb"]
    assert ports.store is not None and ports.embedder is not None
