"""Adapter calls become X-Ray subsegments inside Lambda, and cost nothing outside it."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from mneme import observability
from mneme.adapters.aws.sqs_queue import SqsMemoryQueue
from mneme.ports.memory import MemoryWriteJob


class _Provider:
    def __init__(self) -> None:
        self.names: list[str] = []

    @contextmanager
    def in_subsegment(self, name: str) -> Any:
        self.names.append(name)
        yield None


class _Tracer:
    def __init__(self) -> None:
        self.provider = _Provider()


class _Sqs:
    def send_message_batch(self, **_: Any) -> dict[str, Any]:
        return {"Successful": []}


JOB = MemoryWriteJob(job_id="j1", namespace="vector.user.alice.memory", owner_user_id="alice", content="x")


def test_inside_lambda_an_adapter_call_is_a_subsegment(monkeypatch) -> None:
    fake = _Tracer()
    monkeypatch.setattr(observability, "tracer", lambda: fake)
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "mneme-run")
    SqsMemoryQueue(_Sqs(), "https://sqs/q").enqueue([JOB])
    assert fake.provider.names == ["## sqs.enqueue"]


def test_outside_lambda_no_tracer_is_created(monkeypatch) -> None:
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)

    def boom() -> Any:
        raise AssertionError("the tracer must not be built outside Lambda")

    monkeypatch.setattr(observability, "tracer", boom)
    SqsMemoryQueue(_Sqs(), "https://sqs/q").enqueue([JOB])


def test_the_lambda_tracer_patches_no_library() -> None:
    # In a fresh interpreter that believes it runs in Lambda with tracing active
    import json
    import subprocess
    import sys
    from pathlib import Path

    layer = Path(__file__).resolve().parents[2] / "layers" / "mneme"
    code = (
        f"import sys, json; sys.path.insert(0, {str(layer)!r})\n"
        "from mneme import observability\n"
        "observability.tracer()\n"
        "from aws_xray_sdk.core import patcher\n"
        "print(json.dumps(sorted(patcher._PATCHED_MODULES)))\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "AWS_LAMBDA_FUNCTION_NAME": "mneme-run",
        "LAMBDA_TASK_ROOT": "/var/task",
        "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
    }
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    # Then building the tracer wrapped no module (mneme's own subsegments are opened by `traced`)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
