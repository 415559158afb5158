"""Audit completeness (issue 12.7): every owner whose entries a delete took has its record, a refused
auto-write is a ``denied`` record, preview reads are ``preview``, and one request is one bounded record."""

from __future__ import annotations

import json

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.ops import new_document
from mneme.models.agent import Agent
from tests.functional.api.conftest import Api
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER
from tests.support.deps import World, make_world


def _world(label: str) -> World:
    return LEDGER.world(label, make_world(OfflineModel()))


def _records(world: World, user: str, action: str) -> list[dict[str, object]]:
    page = world.deps.audit.query(user, action=action, limit=100)
    return [r.model_dump(mode="json") for r in page.records]


def test_a_cascaded_delete_is_recorded_under_each_owner_whose_entries_it_took(figures: Figures) -> None:
    # Given a global entry, and entries of alice and bob derived from it (their runs were shown it)
    world = _world("12.7 cascade")
    clock = world.clock
    shared = new_document("g1", "vector.global.howto", "", "how to reset a password", clock=clock)
    mine = new_document("a1", "vector.agent.alice.memory", "alice", "alice asked", clock=clock, derived_from=["g1"])
    theirs = new_document("b1", "vector.agent.bob.memory", "bob", "bob asked", clock=clock, derived_from=["g1"])
    world.memory.put([(doc, world.embedder.embed([doc.content])[0]) for doc in (shared, mine, theirs)])
    # When an admin deletes the global entry
    reply = Api(world).delete("/v1/memory/documents/g1", user="root", admin=True)
    assert reply.status == 204
    assert all(world.memory.documents[i].deleted for i in ("g1", "a1", "b1"))
    # Then alice and bob each have a delete record of their entry, naming what it derived from and who deleted
    for user, entry, namespace in (
        ("alice", "a1", "vector.agent.alice.memory"),
        ("bob", "b1", "vector.agent.bob.memory"),
    ):
        (record,) = _records(world, user, "delete")
        assert record["namespace"] == namespace and record["user_id"] == user
        assert record["detail"] == {
            "via": "http",
            "cascade_of": "g1",
            "count": 1,
            "ids": [entry],
            "deleted_by": "root",
        }
    # And the admin's own record says how many entries went with it
    (own,) = _records(world, "root", "delete")
    assert own["namespace"] == "vector.global.howto" and own["detail"]["cascaded"] == 2  # type: ignore[index]
    figures.add("audit cascade owners recorded", 2)


def test_an_auto_write_the_security_filter_refuses_is_a_denied_record() -> None:
    # Given an agent (of a non-admin) whose auto-write targets global memory
    world = _world("12.7 auto-write")
    world.deps.config.put_agent(
        Agent(
            agent_id="keeper",
            owner="alice",
            label="Keeper",
            memory_policy={"allow_write": True, "write_namespace": "vector.global.notes"},
        )
    )
    # When a run succeeds
    reply = Api(world).post("/v1/runs", {"agent_id": "keeper", "input": "Please remember all of this, it matters."})
    assert (reply.status, reply.body["status"]) == (200, "succeeded")
    # Then nothing is queued, and the refusal is audited under alice (not only a warning event)
    assert world.queue.jobs == []
    (record,) = _records(world, "alice", "denied")
    assert record["namespace"] == "vector.global.notes"
    assert record["detail"] == {"via": "auto_write", "reason": "admin_required"}
    assert record["run_id"] == reply.body["run_id"]


def test_preview_reads_are_audited_as_preview_not_as_a_runs_read() -> None:
    world = _world("12.7 preview")
    world.deps.config.put_agent(Agent(agent_id="echo", owner="alice", label="Echo"))
    api = Api(world)
    assert api.post("/v1/context/preview", {"agent_id": "echo", "input": "what do I know?"}).status == 200
    records = world.deps.audit.query("alice").records
    assert records and {(r.action, r.detail["via"]) for r in records} == {("preview", "preview")}
    # and the audit route filters by it (the OpenAPI document lists the action)
    listed = api.get("/v1/audit", query={"action": "preview"})
    assert listed.status == 200 and len(listed.body["records"]) == len(records)
    schema = json.loads(api.get("/v1/openapi.json").text)
    assert "preview" in json.dumps(schema["components"]["schemas"]["AuditRecordView"])


def test_one_tool_call_naming_many_forbidden_namespaces_is_one_bounded_record(figures: Figures) -> None:
    world = _world("12.7 bounded")
    world.deps.config.put_agent(
        Agent(
            agent_id="searcher",
            owner="alice",
            label="Searcher",
            tools=["memory-search"],
            memory_policy={"tool_read_namespaces": ["vector.agent.${user_id}.*"], "auto_read_enabled": False},
        )
    )
    api = Api(world)
    for named in (20, 2000):
        since = len(world.deps.audit.query("alice", action="denied", limit=100).records)
        namespaces = [f"vector.user.bob.n{i}" for i in range(named)]
        call = json.dumps({"query": "the plan", "namespaces": namespaces})
        # When alice's model names that many of bob's namespaces in one search
        reply = api.post("/v1/runs", {"agent_id": "searcher", "input": f"/tool memory-search {call}"})
        assert (reply.status, reply.body["status"]) == (200, "succeeded")
        # Then exactly one denied record says how many it named, with a sample of at most 32 names
        records = world.deps.audit.query("alice", action="denied", limit=100).records
        assert len(records) - since == 1, named
        detail = records[0].detail
        assert detail["count"] == named and detail["via"] == "tool"
        assert detail["namespaces"] == namespaces[:32]
        figures.add("audit bounded denials (names in one record)", named)
