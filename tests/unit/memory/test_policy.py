"""Policy merge, run overrides and strict resolution for policies and tool input (SPEC §5.1, §5.2)."""

from __future__ import annotations

import pytest

from mneme.errors import InvalidInput, ToolError
from mneme.memory.policy import (
    MemoryScope,
    apply_run_overrides,
    merge_policies,
    resolve_patterns,
    resolve_tool_namespace,
)
from mneme.models.policy import DEFAULT_READ_NAMESPACES, MemoryPolicy, ResolvedPolicy

AGENT = MemoryPolicy(
    top_k=8,
    min_score=0.2,
    allow_write=True,
    tool_read_namespaces=["vector.global.*", "vector.user.${user_id}.howto"],
    read_namespaces=["vector.user.${user_id}.preferences"],
)


@pytest.mark.parametrize(
    ("task", "field", "expected"),
    [
        (MemoryPolicy(top_k=3), "top_k", 3),  # set on the task: wins
        (MemoryPolicy(top_k=3), "min_score", 0.2),  # unset on the task: inherited
        (MemoryPolicy(allow_write=False), "allow_write", False),  # False is "set"
        (None, "top_k", 8),  # no task policy
        (MemoryPolicy(), "relative_cutoff", None),  # unset on both: the calibrated default
        (MemoryPolicy(), "write_namespace", "vector.agent.${user_id}.memory"),
    ],
)
def test_task_fields_override_agent_fields_one_by_one(task: MemoryPolicy | None, field: str, expected: object) -> None:
    # Given an agent policy and a task policy / When merged
    merged = merge_policies(AGENT, task)
    # Then a set task field wins, unset fields inherit, then the defaults
    assert getattr(merged, field) == expected


def test_lists_replace_never_merge() -> None:
    # Given an agent with two tool namespaces and a task with one
    task = MemoryPolicy(tool_read_namespaces=["vector.global.howto"])
    # When merged
    merged = merge_policies(AGENT, task)
    # Then the task's list replaces the agent's
    assert merged.tool_read_namespaces == ("vector.global.howto",)


def test_the_two_read_lists_are_never_mixed() -> None:
    # Given an agent with both read lists / When merged without a task
    merged = merge_policies(AGENT)
    # Then each list keeps only its own entries
    assert merged.read_namespaces == ("vector.user.${user_id}.preferences",)
    assert merged.tool_read_namespaces == ("vector.global.*", "vector.user.${user_id}.howto")


@pytest.mark.parametrize(
    ("agent", "task"),
    [
        (MemoryPolicy(), None),
        (MemoryPolicy(read_namespaces=[]), None),
        (MemoryPolicy(read_namespaces=["vector.global.*"]), MemoryPolicy(read_namespaces=[])),
    ],
)
def test_empty_read_namespaces_mean_the_defaults(agent: MemoryPolicy, task: MemoryPolicy | None) -> None:
    # Given read_namespaces unset or [] / When merged / Then the default agent and user memory
    assert merge_policies(agent, task).read_namespaces == DEFAULT_READ_NAMESPACES
    assert DEFAULT_READ_NAMESPACES == ("vector.agent.${user_id}.memory", "vector.user.${user_id}.memory")


def test_an_unset_policy_is_all_defaults() -> None:
    # Given no policies at all / When merged / Then exactly the defaults
    assert merge_policies(None, None) == ResolvedPolicy()


def test_run_override_enabled_false_turns_off_auto_inject_and_auto_write() -> None:
    # Given a policy with auto-read and auto-write / When the run says memory.enabled=false
    policy = apply_run_overrides(merge_policies(AGENT), enabled=False)
    # Then both are off, tool access is unchanged
    assert (policy.auto_read_enabled, policy.allow_write) == (False, False)
    assert policy.tool_read_namespaces == merge_policies(AGENT).tool_read_namespaces


def test_run_override_enabled_true_does_not_enable_what_the_policy_disables() -> None:
    # Given a policy with auto-read off / When the run says enabled=true / Then it stays off
    base = merge_policies(MemoryPolicy(auto_read_enabled=False))
    assert apply_run_overrides(base, enabled=True) == base


def test_run_override_top_k_replaces_the_policys() -> None:
    # Given top_k 8 / When the run asks for 2 / Then 2
    assert apply_run_overrides(merge_policies(AGENT), top_k=2).top_k == 2


@pytest.mark.parametrize("top_k", [0, 21, -1, True])
def test_run_override_top_k_out_of_range_is_invalid_input(top_k: int) -> None:
    # Given a top_k outside 1..20 / When applied / Then InvalidInput naming the field
    with pytest.raises(InvalidInput) as info:
        apply_run_overrides(ResolvedPolicy(), top_k=top_k)
    assert info.value.field == "memory.top_k"


def test_policy_patterns_unusable_are_skipped_with_a_warning() -> None:
    # Given a chat id that is not a valid segment and no project id
    scope = MemoryScope(user_id="alice", chat_id="Chat_01")
    patterns = [
        "vector.user.${user_id}.memory",
        "vector.user.${user_id}.c-${chat_id}",
        "vector.global.${project_id}",
    ]
    # When resolved for a policy
    resolved, warnings = resolve_patterns(patterns, scope.template_values())
    # Then the usable one remains and each skipped one is named in a warning
    assert resolved == ["vector.user.alice.memory"]
    assert len(warnings) == 2
    assert "c-${chat_id}" in warnings[0] and "${project_id}" in warnings[1]


def test_policy_patterns_resolving_to_the_same_namespace_are_kept_once() -> None:
    # Given two spellings of the same namespace / When resolved / Then once
    resolved, _ = resolve_patterns(
        ["vector.user.${user_id}.memory", "vector.user.{user_id}.memory"], {"user_id": "alice"}
    )
    assert resolved == ["vector.user.alice.memory"]


def test_tool_input_unusable_template_is_a_tool_error() -> None:
    # Given tool input with a template whose value is missing / When resolved / Then ToolError
    with pytest.raises(ToolError, match="cannot be used"):
        resolve_tool_namespace("vector.user.${user_id}.${session_id}", {"user_id": "alice"})


def test_scope_template_values_use_the_callers_user_id() -> None:
    # Given a scope / When its template values are taken / Then user_id is the caller's id
    values = MemoryScope(user_id="alice", agent_id="a1", session_id="s1").template_values()
    assert values["user_id"] == "alice"
    assert (values["agent_id"], values["session_id"], values["chat_id"]) == ("a1", "s1", None)
