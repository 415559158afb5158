"""Who changed an agent, task or skill: each revision names the user whose save or delete made it (``by``). Admins
sharing the global resources tell each other's changes apart; a user who is not an admin never sees who changed a
global one; revisions kept before authors were recorded show ``by: null``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mneme.models.agent import Agent
from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT
from tests.support.deps import World

AGENTS = "/v1/agents/ops"
TASK = f"{AGENTS}/tasks/weekly"
SKILL = "/v1/skills/playbook"
ANN: dict[str, Any] = {"user": "admin-ann-7c1", "admin": True}
ROOT: dict[str, Any] = {"user": "admin-root-9f2", "admin": True}


def _authors(api: Api, path: str, **who: Any) -> list[tuple[str, str | None]]:
    return [(r["change"], r["by"]) for r in api.get(f"{path}/revisions", **who).body["revisions"]]


def test_an_admin_reads_which_admin_made_each_revision_of_a_global_agent(api: Api, world: World) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ROOT).status == 200
    world.clock.advance(seconds=1)
    assert api.put(AGENTS, {**AGENT, "description": "tuned", "global": True}, **ANN).status == 200
    world.clock.advance(seconds=1)
    assert api.delete(AGENTS, **ANN).status == 204
    assert _authors(api, AGENTS, **ROOT) == [("deleted", ANN["user"]), ("saved", ANN["user"]), ("saved", ROOT["user"])]


def test_an_admin_reads_who_changed_a_global_task_and_skill(api: Api, world: World) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ROOT).status == 200
    assert api.put(TASK, {"name": "Weekly", "context_prompt": "p"}, **ANN).status == 200
    assert api.put(SKILL, {"description": "d", "content": "c", "global": True}, **ROOT).status == 200
    world.clock.advance(seconds=1)
    assert api.delete(SKILL, **ANN).status == 204
    assert _authors(api, TASK, **ROOT) == [("saved", ANN["user"])]
    assert _authors(api, SKILL, **ANN) == [("deleted", ANN["user"]), ("saved", ROOT["user"])]


def test_a_user_never_sees_which_admin_changed_a_global_resource(api: Api) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ROOT).status == 200
    assert api.put(TASK, {"name": "Weekly", "context_prompt": "p"}, **ROOT).status == 200
    assert api.put(SKILL, {"description": "d", "content": "c", "global": True}, **ROOT).status == 200
    for path in (AGENTS, TASK, SKILL):
        reply = api.get(f"{path}/revisions", user="bob")
        assert reply.status == 200 and ROOT["user"] not in reply.text
        assert [r["by"] for r in reply.body["revisions"]] == [None]


def test_a_users_own_saves_and_deletes_name_them(api: Api, world: World) -> None:
    assert api.put(AGENTS, AGENT, user="alice").status == 200
    assert api.put(TASK, {"name": "Weekly", "context_prompt": "p"}, user="alice").status == 200
    assert api.put(SKILL, {"description": "d", "content": "c"}, user="alice").status == 200
    world.clock.advance(seconds=1)
    assert api.delete(TASK, user="alice").status == 204
    assert api.delete(SKILL, user="alice").status == 204
    assert _authors(api, AGENTS, user="alice") == [("saved", "alice")]
    assert _authors(api, TASK, user="alice") == [("deleted", "alice"), ("saved", "alice")]
    assert _authors(api, SKILL, user="alice") == [("deleted", "alice"), ("saved", "alice")]


def test_a_revision_kept_before_authors_were_recorded_shows_none(api: Api, world: World) -> None:
    agent = Agent(agent_id="ops", owner="alice", **{k: v for k, v in AGENT.items() if k != "global"})
    world.deps.config.put_agent(agent, revision_at=datetime(2026, 1, 1, tzinfo=UTC))
    revisions = api.get(f"{AGENTS}/revisions", user="alice").body["revisions"]
    assert [("by" in r, r.get("by")) for r in revisions] == [(True, None)]


def test_an_erased_admins_id_leaves_the_global_revisions_which_name_their_erasure(api: Api, world: World) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ANN).status == 200
    assert api.put(TASK, {"name": "Weekly", "context_prompt": "p"}, **ANN).status == 200
    world.clock.advance(seconds=1)
    assert api.put(AGENTS, {**AGENT, "description": "tuned", "global": True}, **ROOT).status == 200
    receipt = api.delete(f"/v1/admin/users/{ANN['user']}", **ROOT).body
    assert receipt["status"] == "done" and receipt["verified"] and receipt["global_revisions"] == 2
    erased = f"erased:{receipt['erasure_id']}"
    assert _authors(api, AGENTS, **ROOT) == [("saved", ROOT["user"]), ("saved", erased)]
    assert _authors(api, TASK, **ROOT) == [("saved", erased)]
    for path in (AGENTS, TASK):
        assert ANN["user"] not in api.get(f"{path}/revisions", **ROOT).text


def test_an_erasure_leaves_the_global_revisions_other_admins_made(api: Api) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ROOT).status == 200
    receipt = api.delete("/v1/me", **ANN).body
    assert receipt["verified"] and receipt["global_revisions"] == 0
    assert _authors(api, AGENTS, **ROOT) == [("saved", ROOT["user"])]


def test_a_users_export_names_them_as_the_author_of_their_revisions(api: Api, world: World) -> None:
    assert api.put(AGENTS, AGENT, user="alice").status == 200
    assert api.post("/v1/me/export", None, user="alice").status == 202
    [key] = [k for k in world.exports.objects if k.endswith(".ndjson")]
    revisions = [line["data"] for line in world.exports.lines(key) if line["kind"] == "rev"]
    assert [(r["change"], r["by"]) for r in revisions] == [("saved", "alice")]


class _SavedMeanwhile:
    """The global revisions, where a save by the user lands right after the erasure re-attributed theirs once."""

    def __init__(self, inner: Any, world: World, user: str) -> None:
        self.inner, self.world, self.user, self.raced = inner, world, user, False

    def reattribute(self, user_id: str, to: str) -> int:
        changed = int(self.inner.reattribute(user_id, to))
        if not self.raced:
            self.raced = True
            agent = Agent(agent_id="late", owner="__global__", **{k: v for k, v in AGENT.items() if k != "global"})
            self.world.deps.config.put_agent(agent, revision_at=self.world.clock.now(), revision_by=self.user)
        return changed

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_global_revision_naming_the_user_written_during_the_erasure_is_found_and_reattributed(
    api: Api, world: World
) -> None:
    assert api.put(AGENTS, {**AGENT, "global": True}, **ANN).status == 200
    object.__setattr__(world.deps, "config_revisions", _SavedMeanwhile(world.deps.config_revisions, world, ANN["user"]))
    receipt = api.delete(f"/v1/admin/users/{ANN['user']}", **ROOT).body
    assert receipt["late"] == {"global_revision": 1} and receipt["verified"]
    assert _authors(api, "/v1/agents/late", **ROOT) == [("saved", f"erased:{receipt['erasure_id']}")]
