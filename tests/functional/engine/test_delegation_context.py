"""A child never gets more than its parent (issue 15.5), through the engine: the tool call's ``context``, the
approval mode, and the readable namespaces (its own policy's, never the parent's)."""

from __future__ import annotations

from mneme.engine.memory_io.ops import new_document
from mneme.engine.runs import service
from mneme.models.run import RunStatus
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import make_world


def _child_messages(model: ScriptedModel) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = model.requests[-1]["messages"]
    return messages


def test_a_tool_call_asking_for_isolated_sends_the_child_only_the_input() -> None:
    model = ScriptedModel(
        [
            text_response("an earlier answer about Apollo"),
            tool_use_response(("delegate-to-agent", {"agent": "b", "input": "the job", "context": "isolated"})),
            text_response("child answer"),
        ]
    )
    world = make_world(model)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    run(world, "tell me about Apollo", chat_id="c1")
    child = run(world, "please delegate", chat_id="c1").run.children[0]
    service.step(world.deps, child)
    messages = _child_messages(model)
    assert len(messages) == 1 and "Apollo" not in str(messages)
    parent = world.deps.runs.get_run(child)
    assert parent is not None and parent.parent_run_id
    started = [e for e in world.deps.runs.list_events(parent.parent_run_id) if e.type == "delegation_started"]
    assert [e.data["context"] for e in started] == ["isolated"]


def test_a_tool_call_cannot_widen_an_isolated_entry() -> None:
    from mneme.models.agent import DelegateEntry

    model = ScriptedModel(
        [
            text_response("an earlier answer about Apollo"),
            tool_use_response(("delegate-to-agent", {"agent": "b", "input": "the job", "context": "full"})),
            text_response("child answer"),
        ]
    )
    world = make_world(model)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=[DelegateEntry(agent="b", context="isolated")])
    add_agent(world, "b")
    run(world, "tell me about Apollo", chat_id="c1")
    child = run(world, "please delegate", chat_id="c1").run.children[0]
    service.step(world.deps, child)
    assert len(_child_messages(model)) == 1


def test_a_child_whose_agent_prompts_asks_even_when_its_parent_was_granted() -> None:
    model = ScriptedModel(
        [
            tool_use_response(("delegate-to-agent", {"agent": "b", "input": "search something"})),
            tool_use_response(("memory-search", {"query": "what is there?"})),
        ]
    )
    world = make_world(model)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", tools=["memory-search"], tool_approval_default="prompt")
    root = run(world, "please delegate", tool_approval="granted").run
    child = service.step(world.deps, root.children[0]).run
    assert (child.tool_approval, child.status) == ("prompt", RunStatus.WAITING_APPROVAL)


def test_the_child_reads_only_its_own_policys_namespaces_not_its_parents() -> None:
    # Given a parent that may search the user's namespaces, and a child whose policy allows none
    model = ScriptedModel(
        [
            tool_use_response(("delegate-to-agent", {"agent": "b", "input": "find the secret"})),
            tool_use_response(("memory-search", {"query": "where is the secret?"})),
            text_response("child done"),
        ]
    )
    world = make_world(model)
    add_agent(
        world,
        "master",
        tools=["delegate-to-agent", "memory-search"],
        delegates=["b"],
        memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"]},
    )
    add_agent(world, "b", tools=["memory-search"])
    doc = new_document("d1", "vector.user.alice.memory", "alice", "the secret is in the drawer", clock=world.clock)
    world.memory.put([(doc, world.embedder.embed([doc.content])[0])])
    root = run(world, "please delegate").run
    # When the child searches
    service.step(world.deps, root.children[0])
    # Then its search found no authorized namespace: the parent's reach did not pass to it
    result = model.requests[-1]["messages"][-1]["content"]
    text = str(result)
    assert "drawer" not in text and "no authorized namespace" in text.lower()


def test_in_an_event_triggered_tree_a_prompting_child_is_denied_as_nobody_can_answer() -> None:
    from mneme.engine.runs.service import start_run
    from mneme.models.run_request import RunRequest
    from tests.functional.engine.conftest import ALICE

    model = ScriptedModel([tool_use_response(("delegate-to-agent", {"agent": "b", "input": "search something"}))])
    world = make_world(model)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", tools=["memory-search"], tool_approval_default="prompt")
    request = RunRequest(agent_id="master", input="go", tool_approval="granted")
    root = start_run(world.deps, ALICE, request, event_triggered=True).run
    child = world.deps.runs.get_run(root.children[0])
    assert child is not None and child.tool_approval == "denied"
