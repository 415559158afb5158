"""Lost updates refused (RFC 9110 §13): the configuration routes answer an ``ETag``, and a PUT with ``If-Match``
(or ``If-None-Match: *``) is a 412 when the resource changed, leaving what the other request wrote."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api, Reply
from tests.functional.api.test_agents import AGENT
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

AGENTS = "/v1/agents/researcher"


def _put(api: Api, path: str, body: dict[str, Any], *, user: str = "alice", **headers: str) -> Reply:
    return api.put(path, body, user=user, headers={k.replace("_", "-"): v for k, v in headers.items()})


def test_get_and_put_answer_the_same_etag_for_the_same_agent(api: Api) -> None:
    saved = api.put(AGENTS, AGENT)
    shown = api.get(AGENTS)
    assert saved.headers["etag"].startswith('"') and saved.headers["etag"] == shown.headers["etag"]


def test_the_etag_changes_with_the_agent_and_only_with_it(api: Api) -> None:
    first = api.put(AGENTS, AGENT).headers["etag"]
    assert api.put(AGENTS, AGENT).headers["etag"] == first
    assert api.put(AGENTS, {**AGENT, "label": "Other"}).headers["etag"] != first


def test_a_put_with_the_current_etag_is_saved(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    reply = _put(api, AGENTS, {**AGENT, "label": "Mine"}, if_match=tag)
    assert reply.status == 200
    assert api.get(AGENTS).body["label"] == "Mine"


def test_a_put_with_a_stale_etag_is_412_and_keeps_the_other_save(api: Api) -> None:
    # Given alice's two editors read the agent, and the first one saves
    seen = api.put(AGENTS, AGENT).headers["etag"]
    theirs = _put(api, AGENTS, {**AGENT, "label": "Theirs"}, if_match=seen)
    # When the second saves with what it read
    reply = _put(api, AGENTS, {**AGENT, "label": "Mine"}, if_match=seen)
    # Then it is refused, told the current tag, and the first save stays
    assert reply.status == 412
    assert reply.body["error"] == "precondition_failed" and "changed since you read it" in reply.body["message"]
    assert reply.headers["etag"] == theirs.headers["etag"]
    assert api.get(AGENTS).body["label"] == "Theirs"


def test_create_only_refuses_an_agent_that_exists(api: Api) -> None:
    assert _put(api, AGENTS, AGENT, if_none_match="*").status == 200
    reply = _put(api, AGENTS, {**AGENT, "label": "Second"}, if_none_match="*")
    assert reply.status == 412 and "exists" in reply.body["message"]
    assert api.get(AGENTS).body["label"] == "Researcher"


def test_if_match_any_refuses_an_agent_that_does_not_exist(api: Api) -> None:
    reply = _put(api, AGENTS, AGENT, if_match="*")
    assert reply.status == 412 and "does not exist" in reply.body["message"]
    assert api.get(AGENTS).status == 404


def test_a_weak_etag_never_matches(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    reply = _put(api, AGENTS, {**AGENT, "label": "Mine"}, if_match=f"W/{tag}")
    assert reply.status == 412
    assert api.get(AGENTS).body["label"] == "Researcher"


def test_one_of_several_etags_matching_is_enough(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    assert _put(api, AGENTS, {**AGENT, "label": "Mine"}, if_match=f'"0123", , {tag},').status == 200  # empty elements


def test_a_malformed_if_match_is_400_naming_the_header(api: Api) -> None:
    api.put(AGENTS, AGENT)
    reply = _put(api, AGENTS, {**AGENT, "label": "Mine"}, if_match="not-quoted")
    assert (reply.status, reply.body["field"]) == (400, "if-match")
    assert api.get(AGENTS).body["label"] == "Researcher"


def test_another_users_agent_tells_nothing_through_a_precondition(api: Api) -> None:
    # Given alice's agent
    tag = api.put(AGENTS, AGENT).headers["etag"]
    # When bob writes the same id with alice's tag, or "exists"
    for header in ({"if_match": tag}, {"if_match": "*"}):
        reply = _put(api, AGENTS, AGENT, user="bob", **header)
        # Then his request is checked against his own (absent) agent: 412 without a tag, alice's agent unchanged
        assert reply.status == 412 and "etag" not in reply.headers
    assert _put(api, AGENTS, {**AGENT, "label": "Bob's"}, user="bob", if_none_match="*").status == 200
    assert api.get(AGENTS).body["label"] == "Researcher"


def test_a_task_saved_with_a_stale_etag_is_412(api: Api) -> None:
    api.put(AGENTS, AGENT)
    path = f"{AGENTS}/tasks/weekly"
    seen = api.put(path, {"name": "Weekly", "context_prompt": "a", "memory_policy": {}}).headers["etag"]
    api.put(path, {"name": "Weekly", "context_prompt": "theirs", "memory_policy": {}})
    reply = _put(api, path, {"name": "Weekly", "context_prompt": "mine", "memory_policy": {}}, if_match=seen)
    assert reply.status == 412
    assert api.get(path).body["context_prompt"] == "theirs"


def test_a_skill_saved_with_a_stale_etag_is_412(api: Api) -> None:
    path = "/v1/skills/tone"
    seen = api.put(path, {"description": "d", "content": "a"}).headers["etag"]
    assert api.get(path).headers["etag"] == seen
    api.put(path, {"description": "d", "content": "theirs"})
    assert _put(api, path, {"description": "d", "content": "mine"}, if_match=seen).status == 412
    assert api.get(path).body["content"] == "theirs"


def test_settings_never_saved_take_the_etag_their_get_answered(api: Api) -> None:
    tag = api.get("/v1/me/settings").headers["etag"]
    body = {"name": "Alice", "email": None, "language": "en", "timezone": "UTC"}
    assert _put(api, "/v1/me/settings", body, if_match=tag).status == 200
    assert _put(api, "/v1/me/settings", {**body, "name": "Again"}, if_match=tag).status == 412
    assert api.get("/v1/me/settings").body["name"] == "Alice"


def test_a_global_agent_a_user_has_not_copied_is_checked_against_what_they_saw(api: Api) -> None:
    # Given a global agent alice sees at the URL
    api.put(AGENTS, {**AGENT, "global": True}, user="root", admin=True)
    seen = api.get(AGENTS).headers["etag"]
    # When she saves her own copy with its tag
    reply = _put(api, AGENTS, {**AGENT, "label": "Mine"}, if_match=seen)
    # Then it is saved as her own and the global one is unchanged
    assert reply.status == 200 and api.get(AGENTS).body["label"] == "Mine"
    assert api.get(AGENTS, user="bob").body["label"] == "Researcher"


def test_without_a_precondition_a_put_still_replaces(api: Api) -> None:
    api.put(AGENTS, AGENT)
    assert api.put(AGENTS, {**AGENT, "label": "Mine"}).status == 200
    assert api.get(AGENTS).body["label"] == "Mine"


# ------------------------------------------------------------------------------------------ memory entries
def test_an_entry_corrected_since_it_was_read_is_not_corrected_again(api: Api, world: World) -> None:
    # Given an entry read by a user, then corrected elsewhere (another tab, the agent's memory-update tool)
    doc_id = remember(world, "vector.user.alice.memory", "Alice lives in Porto")
    seen = api.get(f"/v1/memory/documents/{doc_id}").headers["etag"]
    world.clock.advance(minutes=1)
    theirs = api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"content": "Alice lives in Lisbon"})
    # When the user's own correction is sent with what they read
    path = f"/v1/memory/documents/{doc_id}"
    reply = api.call("PATCH", path, {"content": "Alice lives in Braga"}, headers={"if-match": seen})
    # Then it is a 412 with the current tag, and the other correction stays
    assert reply.status == 412 and reply.headers["etag"] == theirs.headers["etag"]
    assert api.get(path).body["content"] == "Alice lives in Lisbon"
    assert [r.detail["changed"] for r in world.deps.audit.query("alice", action="update").records] == [["content"]]


def test_an_entry_corrected_with_the_tag_it_was_read_with_is_corrected(api: Api, world: World) -> None:
    doc_id = remember(world, "vector.user.alice.memory", "Alice lives in Porto")
    path = f"/v1/memory/documents/{doc_id}"
    seen = api.get(path).headers["etag"]
    reply = api.call("PATCH", path, {"content": "Alice lives in Lisbon"}, headers={"if-match": seen})
    assert reply.status == 200 and reply.headers["etag"] != seen
    assert api.get(path).headers["etag"] == reply.headers["etag"]


# ------------------------------------------------------------------------------------------ deletes
def test_an_agent_changed_since_it_was_read_is_not_deleted(api: Api) -> None:
    seen = api.put(AGENTS, AGENT).headers["etag"]
    api.put(f"{AGENTS}/tasks/weekly", {"name": "Weekly", "context_prompt": "a", "memory_policy": {}})
    api.put(AGENTS, {**AGENT, "label": "Theirs"})
    reply = api.delete(AGENTS, headers={"if-match": seen})
    assert reply.status == 412
    assert api.get(AGENTS).body["label"] == "Theirs" and api.get(f"{AGENTS}/tasks/weekly").status == 200


def test_an_agent_deleted_with_the_tag_it_was_read_with_goes_with_its_tasks(api: Api) -> None:
    api.put(AGENTS, AGENT)
    api.put(f"{AGENTS}/tasks/weekly", {"name": "Weekly", "context_prompt": "a", "memory_policy": {}})
    seen = api.get(AGENTS).headers["etag"]
    assert api.delete(AGENTS, headers={"if-match": seen}).status == 204
    assert api.get(AGENTS).status == 404
    api.put(AGENTS, AGENT)  # the same id again: no task of the deleted agent comes back
    assert api.get(f"{AGENTS}/tasks/weekly").status == 404


def test_a_skill_or_task_changed_since_it_was_read_is_not_deleted(api: Api) -> None:
    api.put(AGENTS, AGENT)
    for path, body in (
        ("/v1/skills/tone", {"description": "d", "content": "a"}),
        (f"{AGENTS}/tasks/weekly", {"name": "Weekly", "context_prompt": "a", "memory_policy": {}}),
    ):
        seen = api.put(path, body).headers["etag"]
        api.put(path, {**body, "name" if "name" in body else "content": "theirs"})
        assert api.delete(path, headers={"if-match": seen}).status == 412
        assert api.get(path).status == 200
        assert api.delete(path, headers={"if-match": api.get(path).headers["etag"]}).status == 204
