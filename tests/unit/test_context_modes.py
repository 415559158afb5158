"""What a sub-agent gets of its parent (issue 15.5): ``full`` / ``isolated`` / ``tail:N`` context, the narrower
of the ``delegates`` entry and the tool call, and an approval mode never more permissive than the parent's."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mneme.delegation_rules import context_mode, history_for, narrower_approval
from mneme.errors import DelegationRefused
from mneme.models.agent import Agent, DelegateEntry
from mneme.models.chat import ChatMessage, SystemMessage, TextMessage, ToolCallMessage, ToolResultMessage

TARGET = Agent(agent_id="researcher", label="Researcher")


def _caller(*delegates: str | DelegateEntry) -> Agent:
    return Agent(agent_id="planner", label="Planner", delegates=list(delegates))


HISTORY: list[ChatMessage] = [
    SystemMessage(text="system text"),
    TextMessage(role="user", text="first question"),
    TextMessage(role="assistant", text="first answer"),
    ToolCallMessage(call_id="c1", tool="memory-search", arguments={"query": "q"}),
    ToolResultMessage(call_id="c1", tool="memory-search", content="found"),
    TextMessage(role="user", text="second question"),
]


def test_a_bare_delegates_entry_allows_the_full_context() -> None:
    assert context_mode(_caller("researcher"), TARGET) == "full"


def test_an_entry_sets_the_mode_and_the_tool_call_may_narrow_it() -> None:
    caller = _caller(DelegateEntry(agent="Researcher", context="tail:4"))
    assert context_mode(caller, TARGET) == "tail:4"
    assert context_mode(caller, TARGET, "tail:2") == "tail:2"
    assert context_mode(caller, TARGET, "isolated") == "isolated"


@pytest.mark.parametrize("requested", ["full", "tail:5", "tail:40"])
def test_the_tool_call_never_widens_the_entrys_mode(requested: str) -> None:
    caller = _caller(DelegateEntry(agent="researcher", context="tail:4"))
    assert context_mode(caller, TARGET, requested) == "tail:4"


def test_an_isolated_entry_stays_isolated_whatever_the_call_asks() -> None:
    caller = _caller(DelegateEntry(agent="researcher", context="isolated"))
    assert context_mode(caller, TARGET, "full") == "isolated"


@pytest.mark.parametrize("requested", ["everything", "tail:0", "tail:-1", "tail:x", 5])
def test_an_invalid_requested_mode_refuses_the_delegation(requested: object) -> None:
    with pytest.raises(DelegationRefused) as refused:
        context_mode(_caller("researcher"), TARGET, requested)
    assert refused.value.field == "context"


@pytest.mark.parametrize("mode", ["tail:0", "partial", "tail:99999"])
def test_an_invalid_entry_mode_is_refused_when_the_agent_is_saved(mode: str) -> None:
    with pytest.raises(ValidationError):
        DelegateEntry(agent="researcher", context=mode)


def test_full_is_the_history_without_system_messages() -> None:
    assert [type(m).__name__ for m in history_for("full", HISTORY)] == [
        "TextMessage",
        "TextMessage",
        "ToolCallMessage",
        "ToolResultMessage",
        "TextMessage",
    ]


def test_isolated_is_nothing() -> None:
    assert history_for("isolated", HISTORY) == []


def test_tail_keeps_the_last_n_messages() -> None:
    assert history_for("tail:1", HISTORY) == [HISTORY[-1]]
    assert history_for("tail:3", HISTORY) == HISTORY[-3:]


def test_tail_drops_a_tool_result_whose_call_it_cut_off() -> None:
    # the last 2 messages are the tool result (its call cut off) and the question: the orphan goes
    assert history_for("tail:2", HISTORY) == [HISTORY[-1]]


@pytest.mark.parametrize(
    ("parent", "own", "child"),
    [
        ("granted", "granted", "granted"),
        ("granted", "prompt", "prompt"),
        ("granted", "denied", "denied"),
        ("prompt", "granted", "prompt"),
        ("prompt", "denied", "denied"),
        ("denied", "granted", "denied"),
        ("denied", "prompt", "denied"),
    ],
)
def test_a_child_is_never_more_permissive_than_its_parent_or_its_own_default(parent, own, child) -> None:
    assert narrower_approval(parent, own) == child


def test_delegate_names_read_both_entry_forms() -> None:
    caller = _caller("writer", DelegateEntry(agent="Researcher", context="isolated"))
    assert caller.delegate_names == ["writer", "Researcher"]


def test_a_fork_entry_forks_and_the_tool_call_may_narrow_it_to_a_fresh_mode() -> None:
    caller = _caller(DelegateEntry(agent="researcher", context="fork"))
    assert context_mode(caller, TARGET) == "fork"
    assert context_mode(caller, TARGET, "fork") == "fork"
    assert context_mode(caller, TARGET, "full") == "full"


def test_a_tool_call_asking_for_fork_gets_only_what_a_fresh_entry_allows() -> None:
    assert context_mode(_caller("researcher"), TARGET, "fork") == "full"


def test_a_refused_mode_names_fork_among_the_allowed_values() -> None:
    with pytest.raises(DelegationRefused) as refused:
        context_mode(_caller("researcher"), TARGET, "forked")
    assert refused.value.field == "context" and '"fork"' in refused.value.message


def test_fork_inherits_the_full_history() -> None:
    assert history_for("fork", HISTORY) == history_for("full", HISTORY)
