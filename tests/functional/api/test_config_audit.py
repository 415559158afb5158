"""Configuration changes in the audit trail: each save and delete of an agent, task or skill is a ``config`` record
in the caller's trail (``GET /v1/audit``), detail ``{change: saved | deleted, resource, id, global}`` (a save's
also ``etag``: its revision's) — an admin's change of a global resource is in that admin's trail, not anyone
else's; a refused change writes none; SPEC §9's ``write`` stays a memory namespace's."""

from __future__ import annotations

from typing import Any

from mneme.errors import AuditWriteFailed
from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT
from tests.reliability.faults import FlakyAudit
from tests.support.deps import World

AGENTS = "/v1/agents/ops"
TASK = f"{AGENTS}/tasks/weekly"
SKILL = "/v1/skills/playbook"
ANN: dict[str, Any] = {"user": "admin-ann-7c1", "admin": True}


def _config_records(api: Api, **who: Any) -> list[dict[str, Any]]:
    records = api.get("/v1/audit", **who).body["records"]
    return [r for r in records if "resource" in (r.get("detail") or {})]


def _summary(api: Api, **who: Any) -> list[tuple[str, str, str, bool]]:
    records = _config_records(api, **who)
    assert {r["action"] for r in records} <= {"config"}
    return [(r["detail"]["change"], r["detail"]["resource"], r["detail"]["id"], r["detail"]["global"]) for r in records]


def test_a_users_saves_and_deletes_of_agents_tasks_and_skills_are_in_their_audit(api: Api, world: World) -> None:
    agent = api.put(AGENTS, AGENT, user="alice")
    world.clock.advance(seconds=1)
    assert api.put(TASK, {"name": "Weekly", "context_prompt": "p"}, user="alice").status == 200
    world.clock.advance(seconds=1)
    assert api.put(SKILL, {"description": "d", "content": "c"}, user="alice").status == 200
    world.clock.advance(seconds=1)
    for path in (SKILL, TASK, AGENTS):
        assert api.delete(path, user="alice").status == 204
        world.clock.advance(seconds=1)
    assert _summary(api, user="alice") == [
        ("deleted", "agent", "ops", False),
        ("deleted", "task", "weekly", False),
        ("deleted", "skill", "playbook", False),
        ("saved", "skill", "playbook", False),
        ("saved", "task", "weekly", False),
        ("saved", "agent", "ops", False),
    ]
    records = _config_records(api, user="alice")
    assert records[-1]["detail"]["etag"] == agent.headers["etag"] and records[-1]["agent_id"] == "ops"
    assert (records[-2]["agent_id"], records[-2]["task_id"]) == ("ops", "weekly")
    assert all(r["user_id"] == "alice" for r in records)


def test_an_admins_change_of_a_global_resource_is_in_that_admins_audit_only(api: Api, world: World) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ANN).status == 200
    world.clock.advance(seconds=1)
    assert api.put(SKILL, {"description": "d", "content": "c", "global": True}, **ANN).status == 200
    world.clock.advance(seconds=1)
    assert api.delete(AGENTS, **ANN).status == 204
    assert _summary(api, **ANN) == [
        ("deleted", "agent", "ops", True),
        ("saved", "skill", "playbook", True),
        ("saved", "agent", "ops", True),
    ]
    assert _summary(api, user="root", admin=True) == []
    bob = api.get("/v1/audit", user="bob")
    assert bob.status == 200 and ANN["user"] not in bob.text and _config_records(api, user="bob") == []


def test_a_refused_change_writes_no_audit_record(api: Api) -> None:
    seen = api.put(AGENTS, AGENT, user="alice").headers["etag"]
    api.put(AGENTS, {**AGENT, "label": "Theirs"}, user="alice")
    assert api.put(AGENTS, {**AGENT, "label": "Mine"}, user="alice", headers={"if-match": seen}).status == 412
    assert api.delete(AGENTS, user="alice", headers={"if-match": seen}).status == 412
    assert api.delete(SKILL, user="alice").status == 404
    assert api.put(AGENTS, {**AGENT, "global": True}, user="bob").status == 403
    assert [a for a, *_ in _summary(api, user="alice")] == ["saved", "saved"]
    assert _summary(api, user="bob") == []


def test_a_save_whose_audit_record_cannot_be_written_is_a_503_and_a_retry_records_it(api: Api, world: World) -> None:
    flaky = FlakyAudit(world.deps.audit, lambda: AuditWriteFailed("the audit table is unavailable"))
    object.__setattr__(world.deps, "audit", flaky)
    reply = api.put(AGENTS, {**AGENT, "global": True}, **ANN)
    assert (reply.status, reply.body["error"]) == (503, "audit_unavailable")
    assert [r["by"] for r in api.get(f"{AGENTS}/revisions", **ANN).body["revisions"]] == [ANN["user"]]
    assert _summary(api, **ANN) == []
    assert api.put(AGENTS, {**AGENT, "global": True}, **ANN).status == 200
    assert _summary(api, **ANN) == [("saved", "agent", "ops", True)]


def test_a_config_change_is_not_listed_as_a_memory_write(api: Api) -> None:
    assert api.put(AGENTS, AGENT, user="alice").status == 200
    written = api.post("/v1/memory/documents", {"namespace": "vector.user.alice.notes", "content": "n"}, user="alice")
    assert written.status == 201
    writes = api.get("/v1/audit", user="alice", query={"action": "write"}).body["records"]
    assert [r["namespace"] for r in writes] == ["vector.user.alice.notes"]
    configs = api.get("/v1/audit", user="alice", query={"action": "config"}).body["records"]
    assert [(r["detail"]["change"], r["detail"]["id"]) for r in configs] == [("saved", "ops")]
