"""Issue 31.7: exports and erasures a crash left unfinished are found in the ledger's open-jobs index and
run again — locally on start (every open job), on AWS by the sweep (the jobs idle past the resume delay)."""

from __future__ import annotations

from mneme.engine.privacy.resume import RESUME_AFTER_SECONDS, resume_open_jobs
from mneme.runtime import Runtime
from tests.functional.api.conftest import Api
from tests.support.deps import World


def _crashed_export(api: Api, world: World) -> str:
    """An export whose worker died while building it: its record says ``running``, no archive was stored."""
    api.put("/v1/me/settings", {"name": "Alice"})
    world.privacy_jobs.hold = True  # the job is lost with the worker
    export_id: str = api.post("/v1/me/export", None).body["export_id"]
    world.privacy_jobs.jobs.clear()
    status = world.deps.privacy_ledger.get_export("alice", export_id)
    assert status is not None
    world.deps.privacy_ledger.put_export(status.model_copy(update={"status": "running"}))
    world.privacy_jobs.hold = False
    return export_id


def test_an_export_left_running_by_a_crash_is_built_when_open_jobs_are_resumed(api: Api, world: World) -> None:
    export_id = _crashed_export(api, world)
    assert resume_open_jobs(world.deps, idle_seconds=0) == [export_id]
    body = api.get(f"/v1/me/exports/{export_id}").body
    assert body["status"] == "ready" and body["counts"]["settings"] == 1
    assert world.exports.objects  # the archive is stored
    assert world.deps.privacy_ledger.open_jobs() == []  # final: out of the index


def test_finished_exports_and_erasures_are_not_open_jobs(api: Api, world: World) -> None:
    api.put("/v1/me/settings", {"name": "Alice"})
    api.post("/v1/me/export", None)
    api.delete("/v1/me", user="bob")
    assert world.deps.privacy_ledger.open_jobs() == []
    assert resume_open_jobs(world.deps, idle_seconds=0) == []


def test_an_erasure_interrupted_between_phases_is_finished_when_open_jobs_are_resumed(api: Api, world: World) -> None:
    api.put("/v1/me/settings", {"name": "Alice"})
    world.privacy_jobs.hold = True
    erasure_id = api.delete("/v1/me").body["erasure_id"]
    world.privacy_jobs.jobs.clear()  # the worker died before it started (its message lost)
    (open_job,) = world.deps.privacy_ledger.open_jobs()
    assert (open_job.job.kind, open_job.job.job_id) == ("erasure", erasure_id)
    world.privacy_jobs.hold = False
    assert resume_open_jobs(world.deps, idle_seconds=0) == [erasure_id]
    receipt = api.get("/v1/me/erasure").body
    assert receipt["status"] == "done" and receipt["verified"] and receipt["counts"] == {"settings": 1}


def test_the_sweep_resumes_a_job_only_once_it_was_idle_past_the_resume_delay(api: Api, world: World) -> None:
    export_id = _crashed_export(api, world)
    runtime = Runtime(world.deps)
    world.clock.advance(seconds=RESUME_AFTER_SECONDS - 60)  # SQS may still redeliver it: left alone
    assert runtime.handle({"action": "sweep"})["privacy_jobs_resumed"] == []
    assert api.get(f"/v1/me/exports/{export_id}").body["status"] == "running"
    world.clock.advance(seconds=120)
    assert runtime.handle({"action": "sweep"})["privacy_jobs_resumed"] == [export_id]
    assert api.get(f"/v1/me/exports/{export_id}").body["status"] == "ready"


def test_a_resumed_job_that_is_not_finished_waits_the_whole_delay_again(api: Api, world: World) -> None:
    export_id = _crashed_export(api, world)
    world.privacy_jobs.hold = True  # the queue takes it, the worker has not run it yet
    world.clock.advance(seconds=RESUME_AFTER_SECONDS + 1)
    assert resume_open_jobs(world.deps) == [export_id]
    world.clock.advance(seconds=RESUME_AFTER_SECONDS - 1)
    assert resume_open_jobs(world.deps) == []  # sent once per delay, not at every sweep
    world.clock.advance(seconds=2)
    assert resume_open_jobs(world.deps) == [export_id]
