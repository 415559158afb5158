"""Agents, tasks and skills (SPEC §2, §10): the caller's own, plus global ones created by admins."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.models.common import GLOBAL_OWNER
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import make_world

AGENT = {
    "label": "Researcher",
    "description": "finds things",
    "model": {"provider": "offline", "model_id": "offline"},
    "tools": ["memory-search"],
    "skills": [],
    "delegates": [],
    "memory_policy": {"top_k": 3, "tool_read_namespaces": ["vector.user.${user_id}.*"]},
    "tool_approval_default": "granted",
}


# ------------------------------------------------------------------------------------------------ agents
def test_put_agent_creates_it_owned_by_the_caller(api: Api, world) -> None:
    # When alice saves an agent
    reply = api.put("/v1/agents/researcher", AGENT)
    # Then it is answered with its fields and stored under alice
    assert reply.status == 200
    assert reply.body["agent_id"] == "researcher"
    assert reply.body["label"] == "Researcher"
    assert reply.body["memory_policy"]["top_k"] == 3
    assert reply.body["global"] is False
    stored = world.deps.config.get_agent("alice", "researcher")
    assert stored is not None and stored.tools == ["memory-search"]


def test_an_owner_or_user_id_in_the_agent_body_is_ignored(api: Api, world) -> None:
    api.put("/v1/agents/researcher", {**AGENT, "owner": "bob", "user_id": "bob"})
    assert world.deps.config.get_agent("alice", "researcher") is not None
    assert world.deps.config.get_agent("bob", "researcher") is None


def test_get_agent_answers_the_saved_agent(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.get("/v1/agents/researcher")
    assert reply.status == 200
    assert (reply.body["agent_id"], reply.body["description"]) == ("researcher", "finds things")


def test_list_agents_answers_the_callers_agents(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.put("/v1/agents/writer", {**AGENT, "label": "Writer"})
    reply = api.get("/v1/agents")
    assert reply.status == 200
    assert [a["agent_id"] for a in reply.body["agents"]] == ["researcher", "writer"]


def test_another_users_agent_is_404(api: Api) -> None:
    # Given alice's agent
    api.put("/v1/agents/researcher", AGENT)
    # When bob reads it, and lists his agents
    reply = api.get("/v1/agents/researcher", user="bob")
    listing = api.get("/v1/agents", user="bob")
    # Then he cannot see it
    assert (reply.status, reply.body["error"]) == (404, "not_found")
    assert listing.body == {"agents": [], "cursor": None}


def test_a_label_used_by_another_agent_of_the_owner_is_409(api: Api, world) -> None:
    # Given alice's agent labelled Researcher
    api.put("/v1/agents/researcher", AGENT)
    # When she saves another agent with the same label in another case
    reply = api.put("/v1/agents/second", {**AGENT, "label": "RESEARCHER"})
    # Then 409 naming the label, and the second agent is not stored
    assert reply.status == 409
    assert (reply.body["error"], reply.body["field"]) == ("conflict", "label")
    assert world.deps.config.get_agent("alice", "second") is None


def test_labels_are_unique_per_owner_only(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.put("/v1/agents/researcher", AGENT, user="bob")
    assert reply.status == 200


def test_an_invalid_namespace_pattern_in_the_policy_is_400(api: Api) -> None:
    body = {**AGENT, "memory_policy": {"read_namespaces": ["vector.user.*.memory"]}}
    reply = api.put("/v1/agents/researcher", body)
    assert reply.status == 400
    assert reply.body["field"] == "memory_policy.read_namespaces"
    assert "vector.user.*.memory" in reply.body["message"]


def test_an_invalid_agent_id_is_400(api: Api) -> None:
    reply = api.put("/v1/agents/Not_A_Slug", AGENT)
    assert (reply.status, reply.body["field"]) == (400, "agent_id")


def test_delete_agent_removes_it(api: Api, world) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.delete("/v1/agents/researcher")
    assert reply.status == 204
    assert world.deps.config.get_agent("alice", "researcher") is None


def test_deleting_another_users_agent_is_404_and_keeps_it(api: Api, world) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.delete("/v1/agents/researcher", user="bob")
    assert reply.status == 404
    assert world.deps.config.get_agent("alice", "researcher") is not None


def test_an_admin_global_agent_is_visible_to_every_user(api: Api) -> None:
    # Given an admin saves a global agent
    created = api.put("/v1/agents/helpdesk", {**AGENT, "label": "Helpdesk", "global": True}, user="root", admin=True)
    assert (created.status, created.body["global"]) == (200, True)
    # When bob lists and reads agents
    listing = api.get("/v1/agents", user="bob")
    reply = api.get("/v1/agents/helpdesk", user="bob")
    # Then he sees it, marked global
    assert [a["agent_id"] for a in listing.body["agents"]] == ["helpdesk"]
    assert (reply.status, reply.body["global"]) == (200, True)


def test_a_non_admin_cannot_create_a_global_agent(api: Api, world) -> None:
    reply = api.put("/v1/agents/helpdesk", {**AGENT, "global": True})
    assert (reply.status, reply.body["error"]) == (403, "forbidden")
    assert world.deps.config.list_agents("__global__") == []


def test_a_non_admin_cannot_delete_a_global_agent(api: Api, world) -> None:
    api.put("/v1/agents/helpdesk", {**AGENT, "global": True}, user="root", admin=True)
    reply = api.delete("/v1/agents/helpdesk", user="bob")
    assert reply.status == 403  # it sees the agent; only admins delete it
    assert world.deps.config.get_agent("__global__", "helpdesk") is not None


# ------------------------------------------------------------------------------------------------ tasks
TASK = {"name": "Weekly report", "context_prompt": "You write reports for ${user_name}.", "memory_policy": {}}


def test_put_task_stores_it_on_the_agent(api: Api, world) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.put("/v1/agents/researcher/tasks/weekly", TASK)
    assert reply.status == 200
    assert (reply.body["task_id"], reply.body["agent_id"], reply.body["warnings"]) == ("weekly", "researcher", [])
    stored = world.deps.config.get_task("alice", "researcher", "weekly")
    assert stored is not None and stored.name == "Weekly report"


def test_a_task_using_the_current_time_warns(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.put("/v1/agents/researcher/tasks/daily", {**TASK, "context_prompt": "Now: ${current_time}"})
    assert reply.status == 200
    assert any("current_time" in w for w in reply.body["warnings"])


def test_list_and_get_tasks(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.put("/v1/agents/researcher/tasks/weekly", TASK)
    listing = api.get("/v1/agents/researcher/tasks")
    reply = api.get("/v1/agents/researcher/tasks/weekly")
    assert [t["task_id"] for t in listing.body["tasks"]] == ["weekly"]
    assert (reply.status, reply.body["context_prompt"]) == (200, TASK["context_prompt"])


def test_a_task_of_another_users_agent_is_404(api: Api, world) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.put("/v1/agents/researcher/tasks/weekly", TASK)
    assert api.get("/v1/agents/researcher/tasks/weekly", user="bob").status == 404
    assert api.put("/v1/agents/researcher/tasks/other", TASK, user="bob").status == 404
    assert world.deps.config.get_task("alice", "researcher", "other") is None


def test_delete_task_removes_it(api: Api, world) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.put("/v1/agents/researcher/tasks/weekly", TASK)
    reply = api.delete("/v1/agents/researcher/tasks/weekly")
    assert reply.status == 204
    assert world.deps.config.get_task("alice", "researcher", "weekly") is None
    assert api.get("/v1/agents/researcher/tasks/weekly").status == 404


# ------------------------------------------------------------------------------------------------ skills
SKILL = {"description": "Summarize a document", "when_to_use": "for long texts", "content": "Read, then summarize."}


def test_put_skill_stores_it(api: Api, world) -> None:
    reply = api.put("/v1/skills/summarize", SKILL)
    assert reply.status == 200
    assert (reply.body["name"], reply.body["global"]) == ("summarize", False)
    assert [s.name for s in world.deps.config.get_skills("alice", ["summarize"])] == ["summarize"]


def test_list_and_get_skills(api: Api) -> None:
    api.put("/v1/skills/summarize", SKILL)
    listing = api.get("/v1/skills")
    reply = api.get("/v1/skills/summarize")
    assert [s["name"] for s in listing.body["skills"]] == ["summarize"]
    assert (reply.status, reply.body["content"]) == (200, "Read, then summarize.")


def test_another_users_skill_is_404(api: Api) -> None:
    api.put("/v1/skills/summarize", SKILL)
    reply = api.get("/v1/skills/summarize", user="bob")
    assert (reply.status, reply.body["error"]) == (404, "not_found")
    assert "skill" in reply.body["message"]


def test_a_skill_name_that_is_not_a_slug_is_400(api: Api) -> None:
    reply = api.put("/v1/skills/Summarize_It", SKILL)
    assert (reply.status, reply.body["field"]) == (400, "name")


def test_a_skill_description_over_1024_chars_is_400(api: Api) -> None:
    reply = api.put("/v1/skills/summarize", {**SKILL, "description": "d" * 1025})
    assert (reply.status, reply.body["field"]) == (400, "description")


def test_delete_skill_removes_it(api: Api, world) -> None:
    api.put("/v1/skills/summarize", SKILL)
    reply = api.delete("/v1/skills/summarize")
    assert reply.status == 204
    assert world.deps.config.get_skills("alice", ["summarize"]) == []


def test_an_agent_naming_a_missing_skill_is_saved_with_a_warning(api: Api) -> None:
    reply = api.put("/v1/agents/researcher", {**AGENT, "skills": ["ghost"]})
    assert reply.status == 200
    assert reply.body["warnings"] == ["skill 'ghost' does not exist yet"]


def test_an_agent_naming_a_missing_delegate_or_itself_is_saved_with_a_warning(api: Api) -> None:
    reply = api.put("/v1/agents/researcher", {**AGENT, "delegates": ["ghost", "Researcher"]})
    assert reply.status == 200
    assert reply.body["warnings"] == [
        "delegate 'Researcher' is this agent itself: a run refuses to delegate to it",
        "delegate 'ghost' does not exist yet",
    ]


def test_delegates_that_exist_own_or_global_by_id_or_label_warn_nothing(api: Api, world) -> None:
    add_agent(world, "writer", label="Writer")
    add_agent(world, "shared", owner=GLOBAL_OWNER, label="Shared helper")
    reply = api.put("/v1/agents/researcher", {**AGENT, "delegates": ["writer", "shared helper"]})
    assert (reply.status, reply.body["warnings"]) == (200, [])


def test_seeded_agents_are_listed(api: Api, world) -> None:
    add_agent(world, "seeded")
    assert [a["agent_id"] for a in api.get("/v1/agents").body["agents"]] == ["seeded"]


def test_an_agent_with_the_openai_compatible_provider_is_saved() -> None:
    # (it runs against an OpenAI-compatible server in tests/functional/api/test_openai_agents.py; without a
    # base URL it is refused: tests/functional/api/test_no_silent_fallback.py)
    api = Api(make_world(OfflineModel(), MNEME_OPENAI_BASE_URL="https://models.example.com/v1"))
    model = {"provider": "openai-compatible", "model_id": "gpt-4.1"}
    reply = api.put("/v1/agents/gpt", {"label": "GPT", "model": model})
    assert reply.status == 200
    assert reply.body["model"]["provider"] == "openai-compatible"


def test_an_unknown_provider_is_refused_with_a_clear_400(api) -> None:
    reply = api.put("/v1/agents/x", {"label": "X", "model": {"provider": "vertex", "model_id": "m"}})
    assert reply.status == 400 and reply.body["field"] == "model.provider"
    assert api.get("/v1/agents/x").status == 404


def test_a_guardrail_on_a_provider_other_than_bedrock_is_refused(api) -> None:
    model = {"provider": "offline", "model_id": "offline", "guardrail": {"id": "abc123", "version": "1"}}
    reply = api.put("/v1/agents/g", {"label": "G", "model": model})
    assert reply.status == 400 and "guardrail" in reply.body["message"]


def test_a_guardrail_with_an_invalid_version_is_refused(api) -> None:
    model = {"provider": "bedrock", "model_id": "amazon.nova-lite-v1:0", "guardrail": {"id": "abc123", "version": "v1"}}
    assert api.put("/v1/agents/g", {"label": "G", "model": model}).status == 400


# ------------------------------------------------------------------------------ extended thinking
SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def _thinking(model_id: str = SONNET, **inference: Any) -> dict[str, Any]:
    inference = {"max_tokens": 8000, "reasoning": {"budget_tokens": 4000}, **inference}
    return {"label": "Thinker", "model": {"provider": "bedrock", "model_id": model_id, "inference": inference}}


def test_reasoning_on_a_model_that_thinks_is_saved(api) -> None:
    reply = api.put("/v1/agents/thinker", _thinking())
    assert reply.status == 200
    assert reply.body["model"]["inference"]["reasoning"] == {"budget_tokens": 4000}


def test_reasoning_on_a_model_without_thinking_is_refused(api) -> None:
    reply = api.put("/v1/agents/thinker", _thinking("amazon.nova-pro-v1:0"))
    assert reply.status == 400 and reply.body["field"] == "model.inference.reasoning"
    assert api.get("/v1/agents/thinker").status == 404


def test_reasoning_needs_max_tokens_above_its_budget(api) -> None:
    reply = api.put("/v1/agents/thinker", _thinking(max_tokens=4000))
    assert reply.status == 400 and "max_tokens" in reply.body["message"]


def test_reasoning_refuses_a_changed_temperature(api) -> None:
    assert api.put("/v1/agents/thinker", _thinking(temperature=0.2)).status == 400


def test_a_reasoning_budget_below_1024_is_refused(api) -> None:
    assert api.put("/v1/agents/thinker", _thinking(reasoning={"budget_tokens": 512})).status == 400


def test_an_agent_with_an_available_provider_is_saved(api) -> None:
    reply = api.put("/v1/agents/claude", {"label": "Claude", "model": {"provider": "bedrock", "model_id": "m"}})
    assert reply.status == 200 and reply.body["model"]["provider"] == "bedrock"


def test_an_external_tool_schema_with_a_remote_ref_is_a_400_naming_it(api: Api, world) -> None:
    # Given a tool schema whose $ref points outside itself (a validator compiling it would fetch the URL)
    tool = {
        "name": "lookup",
        "description": "looks things up",
        "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:lookup",
        "input_schema": {"type": "object", "properties": {"q": {"$ref": "http://169.254.169.254/latest/meta-data/"}}},
    }
    reply = api.put("/v1/agents/fetcher", {**AGENT, "external_tools": [tool]})
    # Then the agent is refused with the field named, and nothing is stored
    assert reply.status == 400 and "external_tools" in reply.body["field"], reply.text
    assert "$ref" in reply.body["message"]
    assert world.deps.config.get_agent("alice", "fetcher") is None


def test_a_local_ref_inside_the_schema_is_accepted(api: Api) -> None:
    tool = {
        "name": "lookup",
        "description": "looks things up",
        "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:lookup",
        "input_schema": {
            "type": "object",
            "$defs": {"q": {"type": "string"}},
            "properties": {"q": {"$ref": "#/$defs/q"}},
        },
    }
    assert api.put("/v1/agents/fetcher", {**AGENT, "external_tools": [tool]}).status == 200
