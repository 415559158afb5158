"""``If-None-Match`` on a DELETE of an agent, task or skill (RFC 9110 §13.1.2): ``*`` fails when the resource
exists, and a listed tag fails when it is the current one. The delete routes read only ``If-Match`` before, so
``If-None-Match: *`` — a script's "only if it is gone already" — deleted the resource with a 204."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

AGENTS = "/v1/agents/researcher"
TASK = {"name": "Weekly", "context_prompt": "a", "memory_policy": {}}
SKILL = {"description": "d", "content": "a"}


def test_if_none_match_any_keeps_an_agent_that_exists(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    api.put(f"{AGENTS}/tasks/weekly", TASK)
    reply = api.delete(AGENTS, headers={"if-none-match": "*"})
    assert reply.status == 412 and "exists" in reply.body["message"] and reply.headers["etag"] == tag
    assert api.get(AGENTS).status == 200 and api.get(f"{AGENTS}/tasks/weekly").status == 200


def test_if_none_match_any_keeps_a_task_or_a_skill_that_exists(api: Api) -> None:
    api.put(AGENTS, AGENT)
    for path, body in ((f"{AGENTS}/tasks/weekly", TASK), ("/v1/skills/tone", SKILL)):
        api.put(path, body)
        assert api.delete(path, headers={"if-none-match": "*"}).status == 412
        assert api.get(path).status == 200


def test_if_none_match_naming_the_current_tag_keeps_the_agent(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    assert api.delete(AGENTS, headers={"if-none-match": tag}).status == 412
    assert api.get(AGENTS).status == 200


def test_if_none_match_naming_another_tag_deletes(api: Api) -> None:
    api.put(AGENTS, AGENT)
    assert api.delete(AGENTS, headers={"if-none-match": '"0123456789abcdef0123"'}).status == 204
    assert api.get(AGENTS).status == 404


def test_if_none_match_any_on_an_absent_agent_is_404(api: Api) -> None:
    assert api.delete(AGENTS, headers={"if-none-match": "*"}).status == 404
