"""The privacy operations through the handler: asynchronous exports and erasures, an interrupted erasure
resumed, the writer's tombstone, the admin route, and an export that round-trips every store's content."""

from __future__ import annotations

from typing import Any

from mneme.adapters.aws.sqs_queue import job_body
from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.engine.privacy.jobs import run_job
from mneme.errors import StoreUnavailable
from mneme.models import Agent, Chat, MemoryDocument, Run, RunEvent, Skill, Task, UserSettings
from mneme.models.chat import ChatMessage
from mneme.models.privacy import ERASURE_PHASES
from mneme.ports.memory import MemoryWriteJob
from tests.functional.adapters.item_backends import Backend
from tests.functional.api.conftest import Api
from tests.functional.privacy.support import (
    PrivacyWorld,
    erasure_during_embedding,
    lines,
    main_items_of,
    populate,
    privacy_world,
)
from tests.support.deps import World, make_world


def test_an_export_held_for_the_worker_is_pending_then_ready_with_a_download_url(api: Api, world: World) -> None:
    world.privacy_jobs.hold = True  # as on AWS: the privacy function builds it later
    reply = api.post("/v1/me/export", None)
    assert (reply.status, reply.body["status"]) == (202, "pending")
    export_id = reply.body["export_id"]
    assert api.get(f"/v1/me/exports/{export_id}").body["status"] == "pending"
    assert "download_url" not in api.get(f"/v1/me/exports/{export_id}").body
    assert world.privacy_jobs.drain() == 1
    ready = api.get(f"/v1/me/exports/{export_id}").body
    assert ready["status"] == "ready" and ready["download_url"].startswith("memory://exports/exports/")
    assert ready["counts"]["audit"] == 1  # its own request was audited before it was built
    assert api.get(f"/v1/me/exports/{export_id}", user="bob").status == 404  # another user's: not found


def test_an_export_is_audited(api: Api, world: World) -> None:
    export_id = api.post("/v1/me/export", None).body["export_id"]
    [record] = world.deps.audit.query("alice", action="export").records
    assert record.detail == {"export_id": export_id}


def test_an_erasure_held_for_the_worker_answers_202_then_its_receipt(api: Api, world: World) -> None:
    api.put("/v1/me/settings", {"name": "Alice"})
    world.privacy_jobs.hold = True
    reply = api.delete("/v1/me")
    assert (reply.status, reply.body["status"], reply.body["phases_done"]) == (202, "running", [])
    assert api.get("/v1/me/erasure").body["status"] == "running"
    world.privacy_jobs.drain()
    receipt = api.get("/v1/me/erasure").body
    assert receipt["status"] == "done" and receipt["counts"]["settings"] == 1 and receipt["verified"]


def test_an_erasure_out_of_time_queues_the_rest_and_finishes_later(api: Api, world: World) -> None:
    api.put("/v1/me/settings", {"name": "Alice"})
    world.privacy_jobs.hold = True
    world.privacy_jobs.handler = lambda job: run_job(world.deps, job, budget_seconds=-1)  # no time at all
    api.delete("/v1/me")
    ran = world.privacy_jobs.drain()
    assert ran == len(ERASURE_PHASES)  # one phase per job (each job makes progress), then done
    assert api.get("/v1/me/erasure").body["status"] == "done"


def test_an_interrupted_erasure_resumes_and_its_receipt_counts_everything_once(world: World, api: Api) -> None:
    # Given alice's data, and a run store that fails once while her runs are being deleted
    pw = _pw(world, api)
    populate(pw, "alice")
    original = world.deps.runs.erase_owned
    calls: list[int] = []

    def fails_once(user_id: str, run_ids: Any = ()) -> dict[str, int]:
        calls.append(1)
        if len(calls) == 1:
            original(user_id, list(run_ids)[:1])  # half of it is done, then the store fails
            raise StoreUnavailable("the table is unreachable")
        return original(user_id, run_ids)

    world.deps.runs.erase_owned = fails_once  # type: ignore[method-assign]
    # When she erases herself: the first attempt fails half-way ...
    first = api.delete("/v1/me", user="alice")
    assert first.status == 503
    state = api.get("/v1/me/erasure", user="alice").body
    assert state["status"] == "running" and state["phases_done"][-1] == "chats"
    # ... and asking again resumes it
    second = api.delete("/v1/me", user="alice")
    # Then it finished, counted every item once (as the inventory found them), and left nothing behind
    assert second.status == 200 and second.body["erasure_id"] == state["erasure_id"]
    assert second.body["counts"] == state["counts"] and second.body["counts"]["run"] == 2
    assert second.body["verified"] and second.body["late"] == {}
    assert [(i["PK"], i["SK"]) for i in main_items_of(pw, "alice")] == [("ERASURE#alice", "STATE")]


def _pw(world: World, api: Api) -> PrivacyWorld:
    tables = Backend("memory", world.deps.runs._table, world.deps.audit._table)  # type: ignore[attr-defined]
    return PrivacyWorld(world, api, tables, world.memory)


def _job(user: str, queued_at: str, job_id: str) -> MemoryWriteJob:
    metadata = {"source": "run_output", "user_id": user, "queued_at": queued_at}
    return MemoryWriteJob(job_id, f"vector.user.{user}.memory", user, f"{user} said {job_id}", metadata=metadata)


def _deliver(world: World, *jobs: MemoryWriteJob) -> dict[str, Any]:
    records = [{"messageId": job.job_id, "body": job_body(job)} for job in jobs]
    return write_batch(WriterPorts.of(world.deps), records)


def test_a_queued_write_that_reaches_the_writer_after_the_erasure_brings_nothing_back(api: Api, world: World) -> None:
    # Given a memory write of alice's queued before her erasure, and one of bob's
    before = world.clock.now().isoformat()
    stale, other = _job("alice", before, "stale"), _job("bob", before, "other")
    world.clock.advance(minutes=1)
    assert api.delete("/v1/me").status == 200
    # When both are delivered to the writer afterwards
    answer = _deliver(world, stale, other)
    # Then alice's is dropped (and not retried), bob's is written
    assert answer == {"batchItemFailures": []}
    assert sorted(world.memory.documents) == ["other"]


def test_a_write_queued_after_the_erasure_finished_is_written(api: Api, world: World) -> None:
    assert api.delete("/v1/me").status == 200
    world.clock.advance(minutes=5)  # alice came back and ran an agent
    _deliver(world, _job("alice", world.clock.now().isoformat(), "fresh"))
    assert sorted(world.memory.documents) == ["fresh"]


def test_a_write_of_a_user_whose_erasure_runs_is_dropped(api: Api, world: World) -> None:
    world.privacy_jobs.hold = True
    api.delete("/v1/me")  # running: not finished
    world.clock.advance(minutes=5)
    _deliver(world, _job("alice", world.clock.now().isoformat(), "meanwhile"))
    assert world.memory.documents == {}


def test_the_writer_retries_when_the_tombstones_cannot_be_read(world: World) -> None:
    def down(user_ids: Any) -> Any:
        raise StoreUnavailable("down")

    world.deps.privacy_ledger.erasures = down  # type: ignore[method-assign]
    answer = _deliver(world, _job("alice", world.clock.now().isoformat(), "j1"))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "j1"}]}
    assert world.memory.documents == {}


def test_only_an_admin_erases_another_user_and_both_trails_say_so(api: Api, world: World) -> None:
    api.put("/v1/me/settings", {"name": "Bob"}, user="bob")
    assert api.delete("/v1/admin/users/bob", user="alice").status == 403
    assert api.get("/v1/me/settings", user="bob").body["name"] == "Bob"
    reply = api.delete("/v1/admin/users/bob", user="root", admin=True)
    assert reply.status == 200 and reply.body["requested_by"] == "root" and reply.body["counts"] == {"settings": 1}
    assert api.get("/v1/me/settings", user="bob").body["name"] == ""
    [mine] = world.deps.audit.query("root", action="erasure").records
    assert mine.detail == {"target_user_id": "bob", "erasure_id": reply.body["erasure_id"]}
    [theirs] = world.deps.audit.query("bob", action="erasure").records
    assert theirs.detail["requested_by"] == "root"
    assert api.get("/v1/admin/users/bob/erasure", user="root", admin=True).body["status"] == "done"
    assert api.get("/v1/admin/users/bob/erasure", user="alice").status == 403


def test_the_global_owner_cannot_be_erased(api: Api) -> None:
    reply = api.delete("/v1/admin/users/__global__", user="root", admin=True)
    assert reply.status == 400 and reply.body["field"] == "user_id"


def test_an_export_round_trips_what_every_store_holds(world: World, api: Api) -> None:
    pw = _pw(world, api)
    ids = populate(pw, "alice")
    api.post("/v1/me/export", None)
    archive = list(lines(pw, "alice"))
    by_kind: dict[str, list[Any]] = {}
    for line in archive:
        by_kind.setdefault(line["kind"], []).append(line["data"])
    deps = world.deps
    assert [UserSettings.model_validate(d) for d in by_kind["settings"]] == [deps.config.get_settings("alice")]
    assert [Agent.model_validate(d) for d in by_kind["agent"]] == deps.config.list_agents("alice")
    assert [Task.model_validate(d) for d in by_kind["task"]] == deps.config.list_tasks("alice", "helper")
    assert [Skill.model_validate(d) for d in by_kind["skill"]] == deps.config.list_skills("alice")
    revisions = sorted((d["change"], sorted(d["item"])[0]) for d in by_kind["rev"])  # the agent's, task's, skill's
    assert revisions == [("saved", "agent_id"), ("saved", "agent_id"), ("saved", "content")]
    chat = deps.chats.get_chat("alice", ids["chat_id"])
    assert chat is not None
    assert [Chat.model_validate({**d, "messages": []}).chat_id for d in by_kind["chat"]] == [chat.chat_id]
    messages = [_message(d) for d in by_kind["message"]]
    assert messages == chat.messages
    runs = {Run.model_validate(d).run_id: Run.model_validate(d) for d in by_kind["run"]}
    assert runs.keys() == {ids["run_id"], ids["idempotent_run_id"]}
    events = [RunEvent.model_validate(d) for d in by_kind["event"]]
    assert len(events) == sum(len(deps.runs.list_events(r)) for r in runs)
    assert sorted(map(str, by_kind["request"])) == sorted(
        map(str, [*deps.runs.list_requests(ids["run_id"]), *deps.runs.list_requests(ids["idempotent_run_id"])])
    )
    assert by_kind["checkpoint"] == [deps.runs.load_checkpoint(ids["run_id"])]
    memories = sorted((MemoryDocument.model_validate(d) for d in by_kind["memory"]), key=lambda d: d.id)
    assert memories == sorted(
        (d for d in world.memory.documents.values() if d.owner_user_id == "alice"), key=lambda d: d.id
    )
    assert len(by_kind["audit"]) == _audit_count(world, "alice")
    assert archive[-1]["data"]["counts"] == {k: len(v) for k, v in by_kind.items() if not k.startswith("export_")}


def _message(data: dict[str, Any]) -> ChatMessage:
    from pydantic import TypeAdapter

    return TypeAdapter(ChatMessage).validate_python({k: v for k, v in data.items() if k != "seq"})


def _audit_count(world: World, user: str) -> int:
    total, cursor = 0, None
    while True:
        page = world.deps.audit.query(user, limit=200, cursor=cursor)
        total += len(page.records)
        if page.cursor is None:
            return total
        cursor = page.cursor


def test_the_privacy_world_builds_over_any_backend(tmp_path: Any) -> None:
    from tests.functional.adapters.item_backends import make_backend

    for backend in make_backend("sqlite", tmp_path):
        pw = privacy_world(backend, None)
        assert pw.api.get("/v1/retention").status == 200


def test_expired_chats_and_runs_are_not_exported_but_are_erased() -> None:
    # Given a deployment keeping chats and runs one day, and a run of alice two days ago
    world = make_world(OfflineModel(), MNEME_RETENTION_DAYS_CHATS=1, MNEME_RETENTION_DAYS_RUNS=1)
    api = Api(world)
    api.put("/v1/agents/helper", {"label": "Helper"})
    assert api.post("/v1/runs", {"agent_id": "helper", "input": "hello"}).status == 200
    world.clock.advance(days=2)
    # When she exports, then erases
    api.post("/v1/me/export", None)
    kinds = {line["kind"] for line in lines(_pw(world, api), "alice")}
    receipt = api.delete("/v1/me").body
    # Then the export left out what has expired (as every read does) and the erasure deleted it all the same
    assert not kinds & {"chat", "message", "run", "event", "request", "run_index"}
    assert receipt["counts"]["chat"] == 1 and receipt["counts"]["run"] == 1 and receipt["counts"]["message"] >= 2
    assert [(i["PK"], i["SK"]) for i in main_items_of(_pw(world, api), "alice")] == [("ERASURE#alice", "STATE")]


def test_a_write_checked_before_the_erasure_and_stored_after_it_is_deleted(api: Api, world: World) -> None:
    # Given a write of alice's queued before her erasure, and one of bob's, in one batch
    before = world.clock.now().isoformat()
    jobs = _job("alice", before, "in-flight"), _job("bob", before, "other")
    # When her erasure finishes while the writer embeds them (after it found no tombstone)
    erasure_during_embedding(api, world)
    answer = _deliver(world, *jobs)
    # Then nothing of hers was left behind (nor retried), and bob's is written
    assert answer == {"batchItemFailures": []}
    assert sorted(world.memory.documents) == ["other"]
    assert world.deps.audit.query("alice", action="write").records == []


def test_an_extraction_checked_before_the_erasure_and_stored_after_it_is_deleted(api: Api, world: World) -> None:
    # Given an extraction job of alice's queued before her erasure
    metadata = {"source": "run_output", "user_id": "alice", "queued_at": world.clock.now().isoformat()}
    content, strategies = "I prefer green tea. My name is Alice.", ["facts", "preferences"]
    job = MemoryWriteJob(
        "x1", "vector.user.alice.memory", "alice", content, metadata=metadata, kind="extract", strategies=strategies
    )
    # When her erasure finishes while the writer embeds what the model extracted
    erasure_during_embedding(api, world)
    answer = _deliver(world, job)
    # Then nothing extracted of hers remains
    assert answer == {"batchItemFailures": []}
    assert world.memory.documents == {}


def test_a_write_whose_second_tombstone_read_fails_is_undone_and_retried(world: World) -> None:
    # Given a writer that reads the tombstones once, then finds them unreadable after the write
    read, reads = world.deps.privacy_ledger.erasures, list[int]()

    def once(user_ids: Any) -> Any:
        reads.append(1)
        if len(reads) > 1:
            raise StoreUnavailable("down")
        return read(user_ids)

    world.deps.privacy_ledger.erasures = once  # type: ignore[method-assign]
    # When a write of alice's is delivered
    answer = _deliver(world, _job("alice", world.clock.now().isoformat(), "j1"))
    # Then it is retried and nothing of it stays written blind; a later delivery writes it
    assert answer == {"batchItemFailures": [{"itemIdentifier": "j1"}]}
    assert world.memory.documents == {}
    world.deps.privacy_ledger.erasures = read  # type: ignore[method-assign]
    assert _deliver(world, _job("alice", world.clock.now().isoformat(), "j1")) == {"batchItemFailures": []}
    assert sorted(world.memory.documents) == ["j1"]
