"""functions/privacy/app.py: the privacy queue's jobs and the hourly purge reach the engine, a failing job
goes back to the queue alone, and a job gets the invocation's remaining time less the margin."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.support.deps import World, make_world
from tests.support.sam_template import ROOT

HANDLER = ROOT / "functions" / "privacy" / "app.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mneme_privacy_app", HANDLER)  # every handler is "app"
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Context:
    def __init__(self, remaining_ms: int) -> None:
        self.remaining = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining


@pytest.fixture
def world() -> World:
    return make_world(OfflineModel(), MNEME_RETENTION_DAYS_MEMORY_DOCUMENT=1)


@pytest.fixture
def handler(world: World, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = _load()
    monkeypatch.setattr(module, "_deps", world.deps)  # the container's deps, built once
    return module


def test_a_queued_export_is_built_and_a_bad_message_alone_is_retried(handler: ModuleType, world: World) -> None:
    world.privacy_jobs.hold = True
    from tests.functional.api.conftest import Api

    export_id = Api(world).post("/v1/me/export", None).body["export_id"]
    [job] = world.privacy_jobs.jobs
    body = json.dumps({"kind": job.kind, "user_id": job.user_id, "job_id": job.job_id})
    event = {"Records": [{"messageId": "good", "body": body}, {"messageId": "bad", "body": "{not json"}]}
    answer = handler.lambda_handler(event, _Context(900_000))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "bad"}]}
    status = world.deps.privacy_ledger.get_export("alice", export_id)
    assert status is not None and status.status == "ready"


def test_an_erasure_gets_the_remaining_time_less_the_margin(
    handler: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[float] = []

    def record(deps: Any, records: Any, *, budget_seconds: float) -> dict[str, Any]:
        seen.append(budget_seconds)
        return {"batchItemFailures": []}

    monkeypatch.setattr("mneme.engine.privacy.jobs.handle_batch", record)
    handler.lambda_handler({"Records": []}, _Context(300_000))
    assert seen == [300 - handler.MARGIN_SECONDS]


def test_the_hourly_event_purges_expired_memories(handler: ModuleType, world: World) -> None:
    from tests.functional.api.conftest import Api

    Api(world).post("/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": "kept a day"})
    world.clock.advance(days=2)
    assert handler.lambda_handler({"action": "purge"}, _Context(900_000)) == {"purged": 1}
    assert world.memory.documents == {}
