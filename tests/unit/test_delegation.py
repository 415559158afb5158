"""Delegation rules (SPEC §6) and the event-triggered approval rule (SPEC §7)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from mneme.delegation_rules import (
    can_offer_delegation,
    effective_approval,
    resolve_target,
    sub_run_context,
)
from mneme.errors import DelegationRefused, DepthLimitExceeded, ToolError
from mneme.models import (
    Agent,
    ChatMessage,
    Run,
    SystemMessage,
    TextMessage,
    ToolCallMessage,
    ToolResultMessage,
)
from mneme.models.run import ToolApproval

MASTER = Agent(agent_id="master", label="Master", delegates=["Email Agent", "researcher", "private"])
EMAIL = Agent(agent_id="email", label="Email Agent")
RESEARCHER = Agent(agent_id="researcher", label="Research")
OTHER = Agent(agent_id="other", label="Other")
CANDIDATES = [MASTER, EMAIL, RESEARCHER, OTHER]
NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)


def resolve(reference: str, *, caller: Agent = MASTER, depth: int = 0) -> Agent:
    return resolve_target(reference, caller=caller, candidates=CANDIDATES, depth=depth)


def parent_run(**changes: object) -> Run:
    fields: dict[str, object] = {
        "run_id": "run-2",
        "user_id": "alice",
        "agent_id": "master",
        "task_id": "default",
        "chat_id": "chat-1",
        "project_id": "proj-1",
        "session_id": "sess-1",
        "depth": 1,
        "parent_run_id": "run-1",
        "root_run_id": "run-1",
        "tool_approval": "prompt",
        "created_at": NOW,
        "updated_at": NOW,
    }
    return Run.model_validate(fields | changes)


def user(text: str) -> TextMessage:
    return TextMessage(role="user", text=text)


def assistant(text: str) -> TextMessage:
    return TextMessage(role="assistant", text=text)


# ------------------------------------------------------------------------------------------- resolution
@pytest.mark.parametrize("reference", ["Email Agent", "email agent", "EMAIL AGENT", " email agent "])
def test_target_by_label_ignores_case(reference: str) -> None:
    # Given a delegate named by its label in any case  # When resolved  # Then that agent
    assert resolve(reference) is EMAIL


@pytest.mark.parametrize(
    ("reference", "target"),
    [
        pytest.param("researcher", RESEARCHER, id="listed-by-id"),
        pytest.param("email", EMAIL, id="listed-by-label-named-by-id"),
        pytest.param("research", RESEARCHER, id="listed-by-id-named-by-label"),
    ],
)
def test_target_by_id(reference: str, target: Agent) -> None:
    # Given a delegate listed by id or label  # When named by id or label  # Then that agent
    assert resolve(reference) is target


@pytest.mark.parametrize("reference", ["master", "MASTER", "Master", "master "])
def test_self_delegation_is_refused_by_id_or_label_ignoring_case(reference: str) -> None:
    # Given the caller naming itself  # When resolved  # Then the delegation is refused
    with pytest.raises(DelegationRefused, match="cannot delegate to itself"):
        resolve(reference)


def test_self_delegation_is_refused_even_when_listed_as_delegate() -> None:
    # Given an agent that lists itself among its delegates
    caller = MASTER.model_copy(update={"delegates": ["master"]})
    # When it delegates to itself  # Then it is refused
    with pytest.raises(DelegationRefused, match="cannot delegate to itself"):
        resolve("master", caller=caller)


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        pytest.param("other", 'agent "other" is not one of this agent\'s delegates', id="not-a-delegate"),
        pytest.param("ghost", 'unknown agent "ghost"', id="unknown"),
        pytest.param("private", 'agent "private" is not available to you', id="listed-but-not-usable"),
        pytest.param("  ", '"agent" must name an agent', id="blank"),
    ],
)
def test_target_must_be_a_usable_delegate(reference: str, reason: str) -> None:
    # Given a reference that is not a usable delegate  # When resolved  # Then refused with the reason
    with pytest.raises(DelegationRefused) as raised:
        resolve(reference)
    assert reason in raised.value.message
    assert "allowed: Email Agent, researcher, private" in raised.value.message


def test_refusal_is_a_tool_error_for_the_model() -> None:
    # Given a refused delegation  # When resolved  # Then the error is a ToolError (the run goes on)
    with pytest.raises(ToolError):
        resolve("other")


def test_depth_5_cannot_delegate() -> None:
    # Given a run at depth 5  # When it delegates  # Then the depth limit refuses it
    with pytest.raises(DepthLimitExceeded, match="maximum delegation depth is 5"):
        resolve("researcher", depth=5)


def test_depth_4_can_delegate() -> None:
    # Given a run at depth 4  # When it delegates  # Then the target is resolved
    assert resolve("researcher", depth=4) is RESEARCHER


@pytest.mark.parametrize(
    ("delegates", "depth", "offered"),
    [
        pytest.param([], 0, False, id="no-delegates"),
        pytest.param(["email"], 0, True, id="master"),
        pytest.param(["email"], 4, True, id="depth-4"),
        pytest.param(["email"], 5, False, id="depth-5"),
    ],
)
def test_delegation_offered_only_with_delegates_below_the_limit(
    delegates: list[str], depth: int, offered: bool
) -> None:
    # Given an agent and the run depth  # When asked  # Then offered only with delegates and depth < 5
    agent = Agent(agent_id="a", label="A", delegates=delegates)
    assert can_offer_delegation(agent, depth) is offered


# ------------------------------------------------------------------------------------------- sub-run
def test_sub_run_history_drops_system_messages() -> None:
    # Given a parent history with a system message
    history: list[ChatMessage] = [SystemMessage(text="task context"), user("hi"), assistant("hello")]
    # When the sub-run context is built
    context = sub_run_context(parent_run(), history, agent_id="email", input="draft it")
    # Then the system message is gone
    assert list(context.history) == [user("hi"), assistant("hello")]


def test_sub_run_history_keeps_tool_messages_only_in_pairs() -> None:
    # Given a paired call, an orphan result and the pending delegate call
    history: list[ChatMessage] = [
        user("find and mail"),
        ToolCallMessage(call_id="c1", tool="memory-search", arguments={"query": "q"}),
        ToolResultMessage(call_id="c1", tool="memory-search", content="hits"),
        ToolResultMessage(call_id="lost", content="orphan"),
        ToolCallMessage(call_id="d1", tool="delegate-to-agent", arguments={"agent": "email", "input": "x"}),
    ]
    # When the sub-run context is built
    context = sub_run_context(parent_run(), history, agent_id="email", input="x")
    # Then only the complete pair stays
    assert [getattr(m, "call_id", None) for m in context.history] == [None, "c1", "c1"]


def test_delegation_input_is_the_last_user_text_merged_with_a_preceding_user_turn() -> None:
    # Given a parent history that ends with a user message once the pending delegate call is dropped
    history: list[ChatMessage] = [
        user("earlier"),
        assistant("ok"),
        user("please mail Bob"),
        ToolCallMessage(call_id="d1", tool="delegate-to-agent", arguments={}),
    ]
    # When the sub-run's first request is assembled from what the child receives
    from mneme.context.assembler import ContextInput, assemble
    from mneme.models.agent import ModelSpec

    context = sub_run_context(parent_run(), history, agent_id="email", input="Write Bob a reply")
    request = assemble(
        ContextInput(
            model=ModelSpec(),
            now=datetime(2026, 11, 30, 9, 5, tzinfo=UTC),
            user_text=context.input,
            depth=context.depth,
            history=context.history,
        )
    ).request
    # Then the two user turns meet as one user message whose last text block is the input (with its suffix)
    last = request["messages"][-1]
    texts = [block["text"] for block in last["content"] if "text" in block]
    assert last["role"] == "user" and [m["role"] for m in request["messages"]] == ["user", "assistant", "user"]
    assert texts[0] == "please mail Bob" and texts[-1].startswith("Write Bob a reply")


def test_sub_run_carries_ids_approval_and_next_depth() -> None:
    # Given a parent run at depth 1 in prompt mode
    parent = parent_run()
    # When the sub-run context is built
    context = sub_run_context(parent, [], agent_id="email", input="x", task_id="reply")
    # Then it inherits the ids and approval mode, one level deeper, with parent and root run ids
    assert context.model_dump(exclude={"history", "input"}) == {
        "agent_id": "email",
        "task_id": "reply",
        "user_id": "alice",
        "chat_id": "chat-1",
        "project_id": "proj-1",
        "session_id": "sess-1",
        "tool_approval": "prompt",
        "depth": 2,
        "parent_run_id": "run-2",
        "root_run_id": "run-1",
    }


def test_sub_run_context_is_frozen() -> None:
    # Given a sub-run context  # When changed  # Then pydantic refuses
    context = sub_run_context(parent_run(), [], agent_id="email", input="x")
    with pytest.raises(ValidationError):
        context.depth = 3  # type: ignore[misc]


def test_sub_run_from_depth_5_is_refused() -> None:
    # Given a parent at depth 5  # When a sub-run is built  # Then the depth limit refuses it
    with pytest.raises(DepthLimitExceeded):
        sub_run_context(parent_run(depth=5), [], agent_id="email", input="x")


# ------------------------------------------------------------------------------------------- approval
@pytest.mark.parametrize(
    ("requested", "agent_default", "event_triggered", "mode"),
    [
        pytest.param(None, "prompt", False, "prompt", id="api-agent-default"),
        pytest.param("granted", "prompt", False, "granted", id="api-request-wins"),
        pytest.param(None, "prompt", True, "denied", id="event-prompt-becomes-denied"),
        pytest.param("prompt", "granted", True, "denied", id="event-requested-prompt-denied"),
        pytest.param("granted", "prompt", True, "granted", id="event-says-granted"),
        pytest.param(None, "granted", True, "granted", id="event-agent-granted"),
        pytest.param("denied", "granted", True, "denied", id="event-says-denied"),
    ],
)
def test_effective_approval(
    requested: ToolApproval | None, agent_default: ToolApproval, event_triggered: bool, mode: ToolApproval
) -> None:
    # Given the requested mode, the agent default and the trigger  # When resolved  # Then the mode
    assert effective_approval(requested, agent_default, event_triggered=event_triggered) == mode
