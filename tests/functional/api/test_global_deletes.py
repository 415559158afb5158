"""A global agent, task, skill or memory entry that every user reads but only an admin may change: a user's DELETE
(and a user's read of a global entry's history) is a 403 saying so, as their PUT and PATCH already were — not a
404 for something their GET just answered — and nothing is deleted. Another user's resources stay 404."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT
from tests.support.deps import World

ROOT = {"user": "root", "admin": True}
SKILL = {"description": "House style", "content": "Write plainly.", "global": True}


def _global_agent(api: Api) -> None:
    assert api.put("/v1/agents/helpdesk", {**AGENT, "global": True}, **ROOT).status == 200
    assert api.put("/v1/agents/helpdesk/tasks/triage", {"name": "Triage"}, **ROOT).status == 200


def _global_entry(api: Api) -> str:
    reply = api.post("/v1/memory/documents", {"namespace": "vector.global.howto", "content": "Reset via SSO."}, **ROOT)
    assert reply.status == 201, reply.text
    return str(reply.body["ids"][0])


def test_a_user_deleting_a_global_agent_is_a_403_and_it_stays(api: Api) -> None:
    _global_agent(api)
    reply = api.delete("/v1/agents/helpdesk")
    assert reply.status == 403 and "admin" in reply.body["message"]
    assert api.get("/v1/agents/helpdesk").status == 200


def test_an_admin_deletes_the_global_agent(api: Api) -> None:
    _global_agent(api)
    assert api.delete("/v1/agents/helpdesk", **ROOT).status in (200, 204)
    assert api.get("/v1/agents/helpdesk").status == 404


def test_a_user_deleting_an_agent_nobody_has_is_a_404(api: Api) -> None:
    assert api.delete("/v1/agents/helpdesk").status == 404


def test_a_user_deleting_a_task_of_a_global_agent_is_a_403_and_it_stays(api: Api) -> None:
    _global_agent(api)
    reply = api.delete("/v1/agents/helpdesk/tasks/triage")
    assert reply.status == 403
    assert api.get("/v1/agents/helpdesk/tasks/triage").status == 200


def test_a_user_deleting_a_global_skill_is_a_403_and_it_stays(api: Api) -> None:
    assert api.put("/v1/skills/house-style", SKILL, **ROOT).status == 200
    assert api.delete("/v1/skills/house-style").status == 403
    assert api.get("/v1/skills/house-style").status == 200


def test_a_user_deleting_a_skill_nobody_has_is_a_404(api: Api) -> None:
    assert api.delete("/v1/skills/house-style").status == 404


def test_a_user_deleting_a_global_entry_is_a_403_audited_and_it_stays(api: Api, world: World) -> None:
    doc_id = _global_entry(api)
    reply = api.delete(f"/v1/memory/documents/{doc_id}")
    assert reply.status == 403 and "only an admin" in reply.body["message"]
    assert api.get(f"/v1/memory/documents/{doc_id}").status == 200
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.detail["id"], denied.detail["reason"]) == (doc_id, "admin_required")


def test_a_user_deleting_another_users_entry_is_still_a_404(api: Api) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": "vector.user.bob.notes", "content": "Bob's."}, user="bob")
    assert api.delete(f"/v1/memory/documents/{reply.body['ids'][0]}").status == 404


def test_a_users_read_of_a_global_entrys_history_is_a_403_and_an_admins_answers(api: Api) -> None:
    doc_id = _global_entry(api)
    assert api.get(f"/v1/memory/documents/{doc_id}/revisions").status == 403
    assert api.get(f"/v1/memory/documents/{doc_id}/revisions", **ROOT).status == 200


def test_a_users_read_of_the_history_of_a_global_entry_an_admin_deleted_is_an_unknown_ids_404(
    api: Api, world: World
) -> None:
    doc_id = _global_entry(api)
    assert api.delete(f"/v1/memory/documents/{doc_id}", **ROOT).status == 204
    unknown = "0" * 32
    retracted, never = (api.get(f"/v1/memory/documents/{i}/revisions") for i in (doc_id, unknown))
    assert (retracted.status, retracted.text.replace(doc_id, "ID")) == (404, never.text.replace(unknown, "ID"))
    denied = world.deps.audit.query("alice", action="denied").records
    assert sorted((r.namespace, r.detail["reason"], r.detail["id"]) for r in denied) == [
        (None, "not_found", unknown),
        (None, "not_found", doc_id),
    ]
    assert api.get(f"/v1/memory/documents/{doc_id}/revisions", **ROOT).status == 200


def test_a_delete_naming_an_invalid_namespace_is_a_400(api: Api) -> None:
    doc_id = _own_entry(api)
    for namespace in ("garbage", "vector.user.alice.*"):
        reply = api.delete(f"/v1/memory/documents/{doc_id}", query={"namespace": namespace})
        assert (reply.status, reply.body["field"]) == (400, "namespace")
    assert api.get(f"/v1/memory/documents/{doc_id}").status == 200


def test_a_delete_naming_the_entrys_namespace_with_the_template_deletes_it(api: Api) -> None:
    doc_id = _own_entry(api)
    reply = api.delete(f"/v1/memory/documents/{doc_id}", query={"namespace": "vector.user.${user_id}.notes"})
    assert reply.status in (200, 204)
    assert api.get(f"/v1/memory/documents/{doc_id}").status == 404


def _own_entry(api: Api) -> str:
    return str(
        api.post("/v1/memory/documents", {"namespace": "vector.user.alice.notes", "content": "Tea."}).body["ids"][0]
    )


def test_a_global_entry_is_shown_without_who_wrote_it(api: Api) -> None:
    doc_id = _global_entry(api)
    shown = api.get(f"/v1/memory/documents/{doc_id}").body
    hit = api.post("/v1/memory/search", {"query": "How do I reset via SSO?", "top_k": 1}).body["hits"][0]
    assert shown["metadata"] == {"source": "http"} and hit["metadata"] == {"source": "http"}


def test_an_own_entry_still_shows_its_writer(api: Api) -> None:
    doc_id = _own_entry(api)
    assert api.get(f"/v1/memory/documents/{doc_id}").body["metadata"]["user_id"] == "alice"
