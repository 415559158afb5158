"""``GET /v1/audit`` (SPEC §9): the caller's own records, newest first, filtered, paged by cursor."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World
from tests.support.shapes import AUDIT_KEYS


def _write(api: Api, world: World, namespace: str, content: str, user: str = "alice") -> None:
    world.clock.advance(seconds=1)
    reply = api.post("/v1/memory/documents", {"namespace": namespace, "content": content}, user=user)
    assert reply.status == 201


@pytest.fixture
def history(api: Api, world: World) -> None:
    _write(api, world, "vector.user.alice.memory", "one")
    _write(api, world, "vector.user.alice.ideas", "two")
    _write(api, world, "vector.user.alice.memory", "three")
    _write(api, world, "vector.user.bob.memory", "bob's", user="bob")


@pytest.mark.usefixtures("history")
def test_audit_answers_the_callers_records_newest_first(api: Api) -> None:
    reply = api.get("/v1/audit")
    assert reply.status == 200
    records = reply.body["records"]
    assert all(set(r) >= AUDIT_KEYS for r in records)
    assert {r["user_id"] for r in records} == {"alice"}
    assert [r["at"] for r in records] == sorted((r["at"] for r in records), reverse=True)
    assert [r["namespace"] for r in records] == [
        "vector.user.alice.memory",
        "vector.user.alice.ideas",
        "vector.user.alice.memory",
    ]
    assert reply.body["cursor"] is None


@pytest.mark.usefixtures("history")
def test_audit_filters_by_namespace_and_action(api: Api) -> None:
    by_namespace = api.get("/v1/audit", query={"namespace": "vector.user.alice.ideas"}).body["records"]
    by_action = api.get("/v1/audit", query={"action": "delete"}).body["records"]
    assert [r["namespace"] for r in by_namespace] == ["vector.user.alice.ideas"]
    assert by_action == []


@pytest.mark.usefixtures("history")
def test_audit_pages_with_a_cursor(api: Api) -> None:
    # When alice reads two records, then the rest with the cursor
    first = api.get("/v1/audit", query={"limit": "2"})
    second = api.get("/v1/audit", query={"limit": "2", "cursor": first.body["cursor"]})
    # Then the pages do not overlap and together hold her three records
    assert len(first.body["records"]) == 2 and first.body["cursor"]
    assert len(second.body["records"]) == 1 and second.body["cursor"] is None
    ats = [r["at"] for r in first.body["records"] + second.body["records"]]
    assert ats == sorted(ats, reverse=True) and len(set(ats)) == 3


@pytest.mark.usefixtures("history")
def test_a_cursor_that_is_not_valid_is_400(api: Api) -> None:
    reply = api.get("/v1/audit", query={"cursor": "not-a-cursor"})
    assert (reply.status, reply.body["field"]) == (400, "cursor")


@pytest.mark.usefixtures("history")
def test_another_users_cursor_is_400(api: Api) -> None:
    _write_more = api.get("/v1/audit", query={"limit": "1"}, user="alice").body["cursor"]
    reply = api.get("/v1/audit", query={"limit": "1", "cursor": _write_more}, user="bob")
    assert reply.status == 400


def test_an_unknown_action_is_400(api: Api) -> None:
    reply = api.get("/v1/audit", query={"action": "hack"})
    assert (reply.status, reply.body["field"]) == (400, "action")


def test_audit_filters_by_run(api: Api, world: World) -> None:
    # Given two runs of alice (each audits its memory read)
    add_agent(world)
    first = api.post("/v1/runs", {"agent_id": "master", "input": "one"}).body["run_id"]
    api.post("/v1/runs", {"agent_id": "master", "input": "two"})
    # When she filters by the first run
    records = api.get("/v1/audit", query={"run_id": first}).body["records"]
    # Then only its records
    assert records and {(r["run_id"], r["root_run_id"], r["action"]) for r in records} == {(first, first, "read")}


def test_audit_of_another_users_run_is_404(api: Api, world: World) -> None:
    # Given a run of alice
    add_agent(world)
    run_id = api.post("/v1/runs", {"agent_id": "master", "input": "one"}).body["run_id"]
    # When bob asks for its audit
    reply = api.get("/v1/audit", query={"run_id": run_id}, user="bob")
    # Then 404, as for the run itself
    assert (reply.status, reply.body["error"]) == (404, "not_found")


def test_audit_of_an_unknown_run_is_404(api: Api) -> None:
    assert api.get("/v1/audit", query={"run_id": "no-such-run"}).status == 404


def test_a_runs_tree_audit_answers_every_record_of_its_delegation_tree(api: Api, world: World) -> None:
    # Given a master that delegated to a child, whose step has run
    from mneme.engine.runs.service import step

    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    add_agent(world, "writer")
    run_id = api.post("/v1/runs", {"agent_id": "master", "input": "/delegate writer :: a haiku"}).body["run_id"]
    child = world.deps.runs.get_run(run_id).children[0]  # type: ignore[union-attr]
    step(world.deps, child)
    # When alice reads the child's tree audit
    reply = api.get(f"/v1/runs/{child}/audit")
    # Then it is the whole tree's trail, from the root, oldest first
    assert reply.status == 200
    records = reply.body["records"]
    assert all(set(r) >= AUDIT_KEYS for r in records)
    assert {r["root_run_id"] for r in records} == {run_id}
    assert [r["detail"]["outcome"] for r in records if r["action"] == "delegation"] == ["started"]


def test_another_users_tree_audit_is_not_found(api: Api, world: World) -> None:
    add_agent(world, "master")
    run_id = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}).body["run_id"]
    assert api.get(f"/v1/runs/{run_id}/audit", user="bob").status == 404
    assert api.get("/v1/runs/nope/audit").status == 404
