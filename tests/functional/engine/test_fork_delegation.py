"""Fork delegation (issue 35.4) through the engine: a forked child's first request starts with its parent's
request up to the parent's last cache point, byte for byte; a fresh (``full``) child's does not."""

from __future__ import annotations

import json
from typing import Any

from mneme.engine.runs import service
from mneme.models.agent import DelegateEntry
from mneme.ports.models import ModelResponse
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.engine.conftest import add_agent, add_task, run
from tests.support.deps import World, make_world

CLAUDE = {"provider": "bedrock", "model_id": "anthropic.claude-sonnet-4-5-20250929-v1:0"}
PARENT_CONTEXT = "You are the planner of the Apollo programme. " * 40
CHILD_CONTEXT = "You are the researcher: answer with sources."


def rendered(request: dict[str, Any]) -> list[str]:
    """The request in render order (tools → system → message blocks) as canonical JSON, cache points in."""
    blocks = [*request.get("toolConfig", {}).get("tools", []), *request.get("system", [])]
    out = [json.dumps(block, sort_keys=True) for block in blocks]
    for message in request["messages"]:
        out.append(json.dumps({"role": message["role"]}))
        out += [json.dumps(block, sort_keys=True) for block in message["content"]]
    return out


def content(request: dict[str, Any]) -> list[str]:
    """What a prompt cache keys on: the rendered blocks without the cache-point markers."""
    return [block for block in rendered(request) if "cachePoint" not in block]


def cache_offsets(request: dict[str, Any]) -> list[int]:
    """For each cache point, how many content blocks stand in front of it."""
    offsets, seen = [], 0
    for block in rendered(request):
        if "cachePoint" in block:
            offsets.append(seen)
        else:
            seen += 1
    return offsets


def up_to_last_cache_point(request: dict[str, Any]) -> list[str]:
    return content(request)[: cache_offsets(request)[-1]]


def shares_prefix(child: dict[str, Any], parent: dict[str, Any]) -> bool:
    """The child's content starts with the parent's up to its last cache point, and the child has a cache
    point at that very spot (so the provider reads the entry the parent wrote)."""
    prefix = up_to_last_cache_point(parent)
    return content(child)[: len(prefix)] == prefix and len(prefix) in cache_offsets(child)


def _world(context: str, *scripted: ModelResponse, parent_tools: tuple[str, ...] = ("memory-search",)) -> World:
    model = ScriptedModel([text_response("Apollo 11 landed in 1969."), *scripted, text_response("child answer")])
    world = make_world(model)
    master = add_agent(
        world,
        "master",
        model=CLAUDE,
        tools=["delegate-to-agent", *parent_tools],
        delegates=[DelegateEntry(agent="b", context=context)],
        default_task_id="plan",
    )
    add_task(world, master, "plan", context_prompt=PARENT_CONTEXT)
    child = add_agent(world, "b", model=CLAUDE, tools=["memory-search"], default_task_id="research")
    add_task(world, child, "research", context_prompt=CHILD_CONTEXT)
    return world


def _delegate(world: World) -> tuple[str, str]:
    """A first chat turn, then a turn that delegates; the child's first step. (parent id, child id)"""
    run(world, "tell me about Apollo", chat_id="c1")
    parent = run(world, "please delegate", chat_id="c1").run
    child = parent.children[0]
    service.step(world.deps, child)
    return parent.run_id, child


DELEGATE = tool_use_response(("delegate-to-agent", {"agent": "b", "input": "find the crew"}))
SEARCH = tool_use_response(("memory-search", {"query": "Apollo crew"}))


def test_a_forked_child_s_first_request_starts_with_its_parent_s_prefix_up_to_the_last_cache_point() -> None:
    world = _world("fork", DELEGATE)
    parent, child = _delegate(world)
    parent_request = world.deps.runs.list_requests(parent)[-1]
    # the prefix reaches into the messages (the parent's chat history), not only tools and system
    assert json.dumps({"text": "Apollo 11 landed in 1969."}) in up_to_last_cache_point(parent_request)
    assert shares_prefix(world.deps.runs.list_requests(child)[0], parent_request)


def test_a_fresh_child_s_first_request_does_not_share_its_parent_s_prefix() -> None:
    world = _world("full", DELEGATE)
    parent, child = _delegate(world)
    parent_request = world.deps.runs.list_requests(parent)[-1]
    assert not shares_prefix(world.deps.runs.list_requests(child)[0], parent_request)


def test_after_the_parent_s_own_tool_turns_the_fork_reaches_the_parent_s_tail_cache_point() -> None:
    world = _world("fork", SEARCH, DELEGATE)
    parent, child = _delegate(world)
    parent_request = world.deps.runs.list_requests(parent)[-1]
    prefix = up_to_last_cache_point(parent_request)
    assert any("toolResult" in block for block in prefix)  # the parent's memory-search turn is inside
    assert shares_prefix(world.deps.runs.list_requests(child)[0], parent_request)


def test_a_forked_child_sees_the_parent_s_history_and_its_own_instructions_after_the_cache_point() -> None:
    world = _world("fork", DELEGATE)
    _parent, child = _delegate(world)
    request = world.deps.runs.list_requests(child)[0]
    assert "Apollo 11 landed in 1969." in json.dumps(request)
    last = request["messages"][-1]["content"]
    current = last[-1]["text"]
    assert CHILD_CONTEXT in current and current.index(CHILD_CONTEXT) < current.index("find the crew")
    assert all(CHILD_CONTEXT not in block.get("text", "") for block in request["system"])


def test_a_forked_child_may_call_only_its_own_agent_s_tools_among_the_parent_s() -> None:
    world = _world("fork", DELEGATE)
    _parent, child = _delegate(world)
    built = [e for e in world.deps.runs.list_events(child) if e.type == "context_built"]
    assert built[0].data["tools"] == ["memory-search"]
    names = [t["toolSpec"]["name"] for t in world.deps.runs.list_requests(child)[0]["toolConfig"]["tools"][:-1]]
    assert "delegate-to-agent" in names  # in the shared prefix, yet not callable by this child


def test_a_tool_call_cannot_fork_where_the_delegates_entry_does_not_allow_it() -> None:
    call = tool_use_response(("delegate-to-agent", {"agent": "b", "input": "find the crew", "context": "fork"}))
    world = _world("full", call)
    parent, _child = _delegate(world)
    started = [e for e in world.deps.runs.list_events(parent) if e.type == "delegation_started"]
    assert [e.data["context"] for e in started] == ["full"]


def test_a_tool_call_may_narrow_a_fork_entry_to_a_fresh_context() -> None:
    call = tool_use_response(("delegate-to-agent", {"agent": "b", "input": "find the crew", "context": "full"}))
    world = _world("fork", call)
    parent, child = _delegate(world)
    parent_request = world.deps.runs.list_requests(parent)[-1]
    assert not shares_prefix(world.deps.runs.list_requests(child)[0], parent_request)


def test_a_forked_child_calling_a_tool_only_its_parent_has_gets_a_tool_error() -> None:
    again = tool_use_response(("delegate-to-agent", {"agent": "b", "input": "deeper"}))
    world = _world("fork", DELEGATE, again)
    _parent, child = _delegate(world)
    second = world.deps.runs.list_requests(child)[1]
    results = [b["toolResult"] for m in second["messages"] for b in m["content"] if "toolResult" in b]
    assert results and results[-1]["status"] == "error"
    assert world.deps.runs.get_run(child).children == []  # type: ignore[union-attr]


def test_a_forked_child_s_own_tool_missing_from_its_parent_s_prefix_is_not_offered() -> None:
    world = _world("fork", DELEGATE, parent_tools=())
    _parent, child = _delegate(world)
    built = [e for e in world.deps.runs.list_events(child) if e.type == "context_built"]
    assert built[0].data["tools"] == []


def test_a_fork_started_in_a_later_step_takes_the_parent_s_request_from_the_run_store() -> None:
    # Given a parent whose model asks for a search (needing approval) and the fork in one turn
    from mneme.engine.runs import approvals
    from mneme.engine.runs.state import load_state

    both = tool_use_response(
        ("memory-search", {"query": "Apollo crew"}),
        ("delegate-to-agent", {"agent": "b", "input": "find the crew"}),
    )
    world = _world("fork", both)
    run(world, "tell me about Apollo", chat_id="c1")
    waiting = run(world, "please delegate", chat_id="c1", tool_approval="prompt").run
    assert waiting.children == []
    # When the calls are approved and the parent's next step (a new recorder) starts the child
    for pending in load_state(world.deps.runs.load_checkpoint(waiting.run_id) or {}).waiting_approvals:
        world.deps.runs.put_mark(waiting.run_id, approvals.DECISION_MARK + pending.call_id, {"decision": "once"})
    resumed = service.step(world.deps, waiting.run_id).run
    service.step(world.deps, resumed.children[0])
    # Then the child still starts with the prefix of the request that asked for it
    parent_request = world.deps.runs.list_requests(waiting.run_id)[-1]
    assert shares_prefix(world.deps.runs.list_requests(resumed.children[0])[0], parent_request)
