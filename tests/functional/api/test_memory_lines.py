"""The lines of conversation shown with a recalled chat line, where they are wired (issue 30,
:mod:`mneme.memory.conversation`): auto-inject and the memory-search tool show the line said after a hit; the HTTP
search answers the ranked hits alone; another user's memories written in between are never a line; a store that
fails to read them leaves the hits as they were."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme.errors import MemoryUnavailable
from tests.functional.api.conftest import Api
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import injected, remember, remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUESTION = "What genre is Joanna's first screenplay?"
FINISHED = "Joanna: I finished my first screenplay last week!"
ANSWER = "Joanna: It's a mix of drama and romance."
LATER = "Nate: Let's meet on Friday."


def _conversation(world: World, *, between: str | None = None) -> tuple[str, list[str]]:
    """Alice's hit (close to the question), then — after another user's memory if ``between`` — two more lines."""
    hit = remember_at(world, ALICE, FINISHED, query=QUESTION, similarity=0.9)
    if between is not None:
        remember(world, "vector.user.bob.memory", between, owner="bob")
    answer = remember_at(world, ALICE, ANSWER, query=QUESTION, similarity=0.0)
    later = remember_at(world, ALICE, LATER, query=QUESTION, similarity=0.0)
    return hit, [answer, later]


def _agent(world: World, **policy: Any) -> None:
    add_agent(world, tools=["memory-search"], memory_policy={"top_k": 1, **policy})


def _events(world: World, run_id: str) -> list[dict[str, Any]]:
    return [e.data for e in world.deps.runs.list_events(run_id) if e.type == "memory_hits"]


def test_auto_inject_shows_the_lines_said_after_a_recalled_chat_line(world: World) -> None:
    hit, lines = _conversation(world)
    _agent(world)
    result = run(world, QUESTION)
    assert f"{FINISHED}\n{ANSWER}\n{LATER}\n" in injected(world, result.run)  # the hit, then what was said after
    (event,) = _events(world, result.run.run_id)
    said_after = [{"id": line, "offset": offset} for line, offset in zip(lines, (1, 2), strict=True)]
    assert [(h["id"], h.get("lines")) for h in event["hits"]] == [(hit, said_after)]


def test_the_http_search_answers_the_ranked_hits_alone(api: Api, world: World) -> None:
    hit, _ = _conversation(world)
    reply = api.post("/v1/memory/search", {"query": QUESTION, "namespaces": [ALICE], "top_k": 1})
    assert reply.status == 200, reply.text
    assert [h["id"] for h in reply.body["hits"]] == [hit]
    assert "context" not in reply.body["hits"][0]


def test_the_memory_search_tool_gives_the_lines_said_after_its_hit(world: World) -> None:
    _conversation(world)
    _agent(world, auto_read_enabled=False, tool_read_namespaces=[ALICE])
    result = run(world, f"/tool memory-search {json.dumps({'query': QUESTION, 'top_k': 1})}")
    assert f'"said_after": ["{ANSWER}", "{LATER}"]' in (result.run.output or "")


def test_another_users_memory_written_in_between_is_never_a_line(world: World) -> None:
    _, lines = _conversation(world, between="Bob: My PIN is 4321.")
    _agent(world)
    result = run(world, QUESTION)
    block = injected(world, result.run)
    assert "4321" not in block
    assert f"{FINISHED}\n{ANSWER}\n" in block  # alice's own next line, her namespace's write order
    assert [line["id"] for line in _events(world, result.run.run_id)[0]["hits"][0]["lines"]] == lines


def test_a_hit_the_fusion_did_not_read_around_has_its_line_read_once_more(world: World) -> None:
    # the vector mode reads no conversation windows: the lines come from one store call of their own
    _conversation(world)
    _agent(world, retrieval="vector")
    block = injected(world, run(world, QUESTION).run)
    assert f"{FINISHED}\n{ANSWER}\n" in block


def test_a_store_that_fails_to_read_the_lines_leaves_the_hits_as_they_were(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    _conversation(world)
    _agent(world, retrieval="vector")

    def failing(*_args: Any, **_kwargs: Any) -> Any:
        raise MemoryUnavailable("adjacent read failed")

    monkeypatch.setattr(world.memory, "adjacent", failing)
    result = run(world, QUESTION)
    block = injected(world, result.run)
    assert FINISHED in block
    assert ANSWER not in block
    assert result.run.status.value == "succeeded"


def test_an_http_search_asking_for_lines_gets_them_with_each_hit(api: Api, world: World) -> None:
    hit, lines = _conversation(world)
    body = {"query": QUESTION, "namespaces": [ALICE], "top_k": 1, "lines": True}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    (found,) = reply.body["hits"]
    assert found["id"] == hit
    assert [(line["id"], line["content"], line["offset"]) for line in found["context"]] == [
        (lines[0], ANSWER, 1),
        (lines[1], LATER, 2),
    ]


def test_the_preview_shows_the_lines_its_run_would_inject(api: Api, world: World) -> None:
    hit, lines = _conversation(world)
    _agent(world)
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": QUESTION})
    assert reply.status == 200, reply.text
    (shown,) = reply.body["memory_hits"]
    assert (shown["id"], [line["id"] for line in shown["context"]]) == (hit, lines)


def test_a_preview_hit_without_lines_has_no_context_key(api: Api, world: World) -> None:
    remember_at(world, ALICE, "Alice prefers green tea in the morning.", query=QUESTION, similarity=0.9)
    _agent(world)
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": QUESTION})
    assert reply.status == 200, reply.text
    assert "context" not in reply.body["memory_hits"][0]
