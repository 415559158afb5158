"""Issue 31.7: the privacy ledger's open-jobs index over each ItemTable backend (DynamoDB under moto, SQLite,
memory): a non-final export or erasure is listed with when it was last written, a final one is not, and a
touch moves only a job that is still open."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from mneme.adapters.dynamo.privacy_ledger import ItemPrivacyLedger
from mneme.models.privacy import ErasureState, ExportStatus
from mneme.ports.privacy import OpenJob, PrivacyJob
from tests.fakes.clock import FixedClock
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

USER = "user#with#hashes"  # user ids may hold any character, the index key's separator too


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


def _export(clock: FixedClock, status: str) -> ExportStatus:
    now = clock.now()
    return ExportStatus.model_validate(
        {
            "export_id": f"exp-{status}",
            "user_id": USER,
            "status": status,
            "created_at": now,
            "expires_at": now + timedelta(days=7),
            "object_key": f"exports/{'a' * 32}/exp-{status}.ndjson",
        }
    )


def test_open_exports_and_erasures_are_listed_final_ones_are_not(backend: Backend) -> None:
    clock = FixedClock()
    ledger = ItemPrivacyLedger(backend.main, clock)
    for status in ("pending", "running", "ready", "failed"):
        ledger.put_export(_export(clock, status))
    erasure = ErasureState(erasure_id="era-1", user_id=USER, requested_by=USER, started_at=clock.now())
    ledger.put_erasure(erasure)
    ledger.put_erasure(erasure.model_copy(update={"user_id": "done-user", "status": "done"}))
    jobs = sorted(ledger.open_jobs(), key=lambda job: job.job.job_id)
    assert jobs == [
        OpenJob(PrivacyJob("erasure", USER, "era-1"), clock.now()),
        OpenJob(PrivacyJob("export", USER, "exp-pending"), clock.now()),
        OpenJob(PrivacyJob("export", USER, "exp-running"), clock.now()),
    ]
    ledger.put_export(_export(clock, "running").model_copy(update={"status": "ready"}))
    ledger.put_erasure(erasure.model_copy(update={"status": "done", "finished_at": clock.now()}))
    assert [job.job.job_id for job in ledger.open_jobs()] == ["exp-pending"]


def test_a_touch_moves_an_open_job_and_leaves_a_final_one_out_of_the_index(backend: Backend) -> None:
    clock = FixedClock()
    ledger = ItemPrivacyLedger(backend.main, clock)
    ledger.put_export(_export(clock, "running"))
    ledger.put_export(_export(clock, "ready"))
    clock.advance(hours=3)
    ledger.touch(PrivacyJob("export", USER, "exp-running"))
    ledger.touch(PrivacyJob("export", USER, "exp-ready"))
    assert ledger.open_jobs() == [OpenJob(PrivacyJob("export", USER, "exp-running"), clock.now())]
    ready = ledger.get_export(USER, "exp-ready")
    assert ready is not None and ready.status == "ready"
