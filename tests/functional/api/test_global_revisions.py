"""The history of a global agent, task or skill (``GET …/revisions``): its admins read every revision (they change
and restore it); a user who is not an admin reads only what a GET shows them — the current version, and nothing
once it is deleted — so what an admin took out of a global resource is not readable by every user."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT
from tests.support.deps import World

AGENTS = "/v1/agents/ops"
TASK = f"{AGENTS}/tasks/weekly"
SKILL = "/v1/skills/playbook"
ROOT = {"user": "root", "admin": True}


def _global_agent(api: Api, world: World, *descriptions: str) -> None:
    for description in descriptions:
        assert api.put(AGENTS, {**AGENT, "description": description, "global": True}, **ROOT).status == 200
        world.clock.advance(seconds=1)


def _descriptions(api: Api, **who: object) -> list[str]:
    return [r["agent"]["description"] for r in api.get(f"{AGENTS}/revisions", **who).body["revisions"]]


def test_a_user_reads_only_the_current_version_of_a_global_agents_history(api: Api, world: World) -> None:
    _global_agent(api, world, "key sk-pasted-by-mistake", "clean")
    assert _descriptions(api, user="bob") == ["clean"]


def test_an_admin_reads_every_revision_of_a_global_agent(api: Api, world: World) -> None:
    _global_agent(api, world, "key sk-pasted-by-mistake", "clean")
    assert _descriptions(api, user="other-admin", admin=True) == ["clean", "key sk-pasted-by-mistake"]


def test_a_deleted_global_agents_history_is_not_found_for_a_user(api: Api, world: World) -> None:
    _global_agent(api, world, "withdrawn instructions")
    assert api.delete(AGENTS, **ROOT).status == 204
    reply = api.get(f"{AGENTS}/revisions", user="bob")
    assert reply.status == 404 and "withdrawn" not in reply.text
    assert [r["change"] for r in api.get(f"{AGENTS}/revisions", **ROOT).body["revisions"]] == ["deleted", "saved"]


def test_a_user_reads_only_the_current_version_of_a_global_agents_task(api: Api, world: World) -> None:
    _global_agent(api, world, "ops")
    for prompt in ("password hunter2", "clean"):
        assert api.put(TASK, {"name": "Weekly", "context_prompt": prompt}, **ROOT).status == 200
        world.clock.advance(seconds=1)
    prompts = [r["task"]["context_prompt"] for r in api.get(f"{TASK}/revisions", user="bob").body["revisions"]]
    assert prompts == ["clean"]
    admins = [r["task"]["context_prompt"] for r in api.get(f"{TASK}/revisions", **ROOT).body["revisions"]]
    assert admins == ["clean", "password hunter2"]


def test_a_deleted_global_skills_history_is_not_found_for_a_user(api: Api, world: World) -> None:
    assert api.put(SKILL, {"description": "d", "content": "internal runbook", "global": True}, **ROOT).status == 200
    world.clock.advance(seconds=1)
    assert api.delete(SKILL, **ROOT).status == 204
    reply = api.get(f"{SKILL}/revisions", user="bob")
    assert reply.status == 404 and "internal runbook" not in reply.text
