"""The history of agents, tasks and skills (``GET …/revisions``): each save and delete through the API, newest
first, with the resource as it was — a deleted agent can be restored by saving a revision's fields again."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api, Reply
from tests.functional.api.test_agents import AGENT
from tests.support.deps import World

AGENTS = "/v1/agents/researcher"
SETTABLE = ("label", "description", "model", "tools", "skills", "delegates", "memory_policy", "tool_approval_default")


def _fields(agent: dict[str, Any]) -> dict[str, Any]:
    return {key: agent[key] for key in SETTABLE}


def _history(api: Api, path: str = AGENTS, **options: Any) -> Reply:
    return api.get(f"{path}/revisions", **options)


def test_each_save_is_a_revision_newest_first_with_the_agent_as_it_was(api: Api, world: World) -> None:
    first = api.put(AGENTS, AGENT)
    world.clock.advance(minutes=1)
    second = api.put(AGENTS, {**AGENT, "label": "Renamed"})
    revisions = _history(api).body["revisions"]
    assert [(r["change"], r["agent"]["label"]) for r in revisions] == [("saved", "Renamed"), ("saved", "Researcher")]
    assert [r["etag"] for r in revisions] == [second.headers["etag"], first.headers["etag"]]
    assert revisions[0]["at"] > revisions[1]["at"]


def test_a_refused_save_leaves_no_revision(api: Api, world: World) -> None:
    seen = api.put(AGENTS, AGENT).headers["etag"]
    world.clock.advance(seconds=1)
    api.put(AGENTS, {**AGENT, "label": "Theirs"})
    assert api.put(AGENTS, {**AGENT, "label": "Mine"}, headers={"if-match": seen}).status == 412
    assert [r["agent"]["label"] for r in _history(api).body["revisions"]] == ["Theirs", "Researcher"]


def test_a_deleted_agent_keeps_its_history_and_is_restored_from_it(api: Api, world: World) -> None:
    api.put(AGENTS, {**AGENT, "description": "the one to keep"})
    world.clock.advance(seconds=1)
    assert api.delete(AGENTS).status == 204
    revisions = _history(api).body["revisions"]
    assert [r["change"] for r in revisions] == ["deleted", "saved"]
    assert revisions[0]["agent"]["description"] == "the one to keep"  # what was deleted
    restored = api.put(AGENTS, _fields(revisions[0]["agent"]), headers={"if-none-match": "*"})
    assert restored.status == 200 and api.get(AGENTS).body["description"] == "the one to keep"


def test_another_users_agent_history_is_not_found(api: Api) -> None:
    api.put(AGENTS, AGENT)
    reply = _history(api, user="bob")
    assert reply.status == 404 and "Researcher" not in reply.text


def test_a_user_sees_the_global_agents_history_until_they_have_their_own(api: Api, world: World) -> None:
    api.put(AGENTS, {**AGENT, "global": True}, user="root", admin=True)
    world.clock.advance(seconds=1)
    assert [r["agent"]["global"] for r in _history(api).body["revisions"]] == [True]
    api.put(AGENTS, {**AGENT, "label": "Mine"})
    assert [(r["agent"]["label"], r["agent"]["global"]) for r in _history(api).body["revisions"]] == [("Mine", False)]


def test_the_history_pages_with_a_cursor_that_only_fits_its_resource(api: Api, world: World) -> None:
    for label in ("One", "Two", "Three"):
        api.put(AGENTS, {**AGENT, "label": label})
        world.clock.advance(seconds=1)
    first = _history(api, query={"limit": "2"}).body
    rest = _history(api, query={"limit": "2", "cursor": first["cursor"]}).body
    assert [r["agent"]["label"] for r in first["revisions"] + rest["revisions"]] == ["Three", "Two", "One"]
    api.put("/v1/skills/tone", {"description": "d", "content": "c"})
    elsewhere = _history(api, "/v1/skills/tone", query={"cursor": first["cursor"]})
    assert (elsewhere.status, elsewhere.body["field"]) == (400, "cursor")


def test_a_tasks_and_a_skills_saves_and_deletes_are_revisions(api: Api, world: World) -> None:
    api.put(AGENTS, AGENT)
    task = f"{AGENTS}/tasks/weekly"
    for prompt in ("a", "b"):
        api.put(task, {"name": "Weekly", "context_prompt": prompt, "memory_policy": {}})
        world.clock.advance(seconds=1)
    api.delete(task)
    assert [(r["change"], r["task"]["context_prompt"]) for r in _history(api, task).body["revisions"]] == [
        ("deleted", "b"),
        ("saved", "b"),
        ("saved", "a"),
    ]
    api.put("/v1/skills/tone", {"description": "d", "content": "c"})
    assert [r["skill"]["content"] for r in _history(api, "/v1/skills/tone").body["revisions"]] == ["c"]


def test_an_erasure_takes_the_history_with_the_agents(api: Api, world: World) -> None:
    api.put(AGENTS, AGENT)
    world.deps.config.erase_owned("alice")
    assert _history(api).status == 404


# ------------------------------------------------------------------------------------------ runs
def test_a_run_names_the_agent_version_it_started_with(api: Api, world: World) -> None:
    # Given a run of the agent, then a change of the agent, then another run
    api.put(AGENTS, AGENT)
    before = api.post("/v1/runs", {"agent_id": "researcher", "input": "hello"}).body
    world.clock.advance(seconds=1)
    api.put(AGENTS, {**AGENT, "label": "Renamed"})
    after = api.post("/v1/runs", {"agent_id": "researcher", "input": "hello"}).body
    # Then each run names the version it ran, found in the agent's history
    versions = {r["etag"]: r["agent"]["label"] for r in _history(api).body["revisions"]}
    assert versions[api.get(f"/v1/runs/{before['run_id']}").body["agent_version"]] == "Researcher"
    assert versions[after["agent_version"]] == "Renamed" and after["agent_version"] == api.get(AGENTS).headers["etag"]


def test_a_child_run_names_the_version_of_the_agent_it_runs(api: Api, world: World) -> None:
    api.put("/v1/agents/helper", {**AGENT, "label": "Helper"})
    master = {**AGENT, "label": "Master", "tools": ["delegate-to-agent"], "delegates": ["helper"]}
    api.put("/v1/agents/master", master)
    root = api.post("/v1/runs", {"agent_id": "master", "input": "/delegate helper :: hi"}).body
    [child] = api.get(f"/v1/runs/{root['run_id']}").body["children"]
    assert api.get(f"/v1/runs/{child}").body["agent_version"] == api.get("/v1/agents/helper").headers["etag"]


def test_an_agents_delete_lists_its_tasks_whose_history_is_back_once_the_agent_is(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.put("/v1/agents/researcher/tasks/daily", {"name": "Daily"})
    assert api.delete("/v1/agents/researcher").status == 204
    revisions = api.get("/v1/agents/researcher/revisions").body["revisions"]  # the test's clock stands still
    (deleted,) = [r for r in revisions if r["change"] == "deleted"]
    assert deleted["tasks"] == ["daily"]
    restored = {k: v for k, v in deleted["agent"].items() if k in AGENT}
    assert api.put("/v1/agents/researcher", restored, headers={"if-none-match": "*"}).status == 200
    tasks = api.get("/v1/agents/researcher/tasks/daily/revisions").body["revisions"]
    assert sorted((r["change"], r["task"]["name"]) for r in tasks) == [("deleted", "Daily"), ("saved", "Daily")]
