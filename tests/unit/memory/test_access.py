"""Read access decisions: auto-inject, memory-search and HTTP search (SPEC §5.2, §5.4, §9)."""

from __future__ import annotations

import pytest

from mneme.errors import InvalidInput, ToolError
from mneme.memory.access import (
    NO_AUTHORIZED_NAMESPACE,
    Denial,
    auto_inject_access,
    http_search_access,
    tool_search_access,
)
from mneme.memory.policy import MemoryScope
from mneme.models.policy import ResolvedPolicy

ALICE = MemoryScope(user_id="alice", chat_id="c1", agent_id="helper", session_id="s1")
ADMIN = MemoryScope(user_id="root", is_admin=True)
TOOL_POLICY = ResolvedPolicy(
    tool_read_namespaces=("vector.global.*", "vector.user.${user_id}.howto", "vector.agent.bob.memory")
)


# ----------------------------------------------------------------------------------------- auto-inject
def test_auto_inject_reads_resolved_read_namespaces_through_the_filter() -> None:
    # Given default read namespaces plus another user's and global
    policy = ResolvedPolicy(
        read_namespaces=("vector.agent.${user_id}.memory", "vector.user.bob.memory", "vector.global.howto")
    )
    # When the auto-inject read set is decided
    access = auto_inject_access(policy, ALICE)
    # Then own and global pass, the other user's is denied for audit
    assert access.allowed == ("vector.agent.alice.memory", "vector.global.howto")
    assert access.denied == (Denial("vector.user.bob.memory", "security_filter"),)


def test_auto_inject_with_default_policy_reads_own_agent_and_user_memory() -> None:
    # Given the default policy / When decided / Then the caller's agent and user memory
    assert auto_inject_access(ResolvedPolicy(), ALICE).allowed == (
        "vector.agent.alice.memory",
        "vector.user.alice.memory",
    )


def test_auto_inject_reads_nothing_when_auto_read_is_disabled() -> None:
    # Given auto_read_enabled false / When decided / Then nothing, nothing denied
    access = auto_inject_access(ResolvedPolicy(auto_read_enabled=False), ALICE)
    assert (access.allowed, access.denied, access.empty) == ((), (), True)


def test_auto_inject_skips_unusable_patterns_with_a_warning() -> None:
    # Given a pattern needing a project id the run does not have
    policy = ResolvedPolicy(read_namespaces=("vector.user.${user_id}.memory", "vector.global.p-${project_id}"))
    # When decided / Then it is skipped with a warning
    access = auto_inject_access(policy, ALICE)
    assert access.allowed == ("vector.user.alice.memory",)
    assert len(access.warnings) == 1


# ------------------------------------------------------------------------------------------ memory-search
@pytest.mark.parametrize("requested", [None, []])
def test_tool_search_without_namespaces_is_exactly_tool_read_namespaces(requested: list[str] | None) -> None:
    # Given tool_read_namespaces (one of them another user's) / When searched without namespaces
    access = tool_search_access(TOOL_POLICY, ALICE, requested)
    # Then exactly the resolved, readable tool namespaces
    assert access.allowed == ("vector.global.*", "vector.user.alice.howto")
    assert access.denied == (Denial("vector.agent.bob.memory", "security_filter"),)


def test_tool_search_never_falls_back_on_read_namespaces() -> None:
    # Given read_namespaces but no tool_read_namespaces / When searched
    access = tool_search_access(ResolvedPolicy(read_namespaces=("vector.global.howto",)), ALICE)
    # Then nothing is searched and the result says no authorized namespace was found
    assert access.empty and access.message == NO_AUTHORIZED_NAMESPACE


@pytest.mark.parametrize(
    ("requested", "allowed", "denied"),
    [
        (["vector.global.howto"], ("vector.global.howto",), ()),  # within a granted wildcard
        (["vector.user.alice.howto"], ("vector.user.alice.howto",), ()),  # equal to a grant
        (["vector.user.${user_id}.howto"], ("vector.user.alice.howto",), ()),  # template, caller's id
        (["vector.global.howto.*"], ("vector.global.howto.*",), ()),  # wildcard within granted wildcard
        (["vector.global.*"], ("vector.global.*",), ()),  # the grant itself
        (["vector.user.alice.memory"], (), (Denial("vector.user.alice.memory", "not_granted"),)),
        (["vector.user.alice.*"], (), (Denial("vector.user.alice.*", "not_granted"),)),  # wider than grant
        (["vector.user.bob.howto"], (), (Denial("vector.user.bob.howto", "not_granted"),)),  # other user
        (["vector.agent.bob.memory"], (), (Denial("vector.agent.bob.memory", "security_filter"),)),
        (
            ["vector.global.howto", "vector.user.bob.howto", "vector.global.howto"],
            ("vector.global.howto",),
            (Denial("vector.user.bob.howto", "not_granted"),),
        ),
    ],
)
def test_tool_search_with_namespaces_grants_only_covered_and_readable(
    requested: list[str], allowed: tuple[str, ...], denied: tuple[Denial, ...]
) -> None:
    # Given TOOL_POLICY / When the model names namespaces
    access = tool_search_access(TOOL_POLICY, ALICE, requested)
    # Then only what a tool namespace covers and the filter admits is searched; the rest is denied
    assert (access.allowed, access.denied) == (allowed, denied)


def test_tool_search_with_nothing_granted_says_no_authorized_namespace() -> None:
    # Given only ungranted namespaces / When searched
    access = tool_search_access(TOOL_POLICY, ALICE, ["vector.user.bob.howto"])
    # Then an empty result whose message says no authorized namespace was found
    assert access.empty and access.message == NO_AUTHORIZED_NAMESPACE


@pytest.mark.parametrize(
    "requested",
    [
        "vector.user.${project_id}.howto",  # project id missing
        "vector.user.${nope}.howto",  # unknown template
        "vector.user.alice.${user_id}}.x",  # leftover brace
        "vector.*",  # invalid
    ],
)
def test_tool_search_unusable_requested_namespace_is_a_tool_error(requested: str) -> None:
    # Given a requested namespace whose templates cannot be resolved strictly (or that is invalid)
    # When searched / Then a tool error
    with pytest.raises(ToolError):
        tool_search_access(TOOL_POLICY, ALICE, [requested])


def test_tool_search_usable_template_resolves_and_is_then_checked() -> None:
    # Given a requested namespace with usable templates that no tool namespace covers
    access = tool_search_access(TOOL_POLICY, ALICE, ["vector.user.${user_id}.c-${chat_id}"])
    # When searched / Then it is resolved and denied as not granted
    assert access.denied == (Denial("vector.user.alice.c-c1", "not_granted"),)


def test_tool_search_template_injection_cannot_reach_another_user() -> None:
    # Given a caller whose chat id carries template/dot text
    scope = MemoryScope(user_id="alice", chat_id="x.vector.user.bob")
    # When a requested namespace uses ${chat_id} / Then it is unusable, not resolved into bob's scope
    with pytest.raises(ToolError):
        tool_search_access(TOOL_POLICY, scope, ["vector.user.${chat_id}.howto"])


# ------------------------------------------------------------------------------------------- HTTP search
def test_http_search_without_namespaces_is_own_scopes_and_global() -> None:
    # Given no namespaces / When decided / Then own agent and user scopes and global
    access = http_search_access("alice")
    assert access.allowed == ("vector.agent.alice.*", "vector.user.alice.*", "vector.global.*")


def test_http_search_with_namespaces_applies_the_security_filter_only() -> None:
    # Given own, global and another user's namespaces / When decided
    access = http_search_access("alice", ["vector.user.alice.notes", "vector.global.howto", "vector.user.bob.x"])
    # Then own and global pass, the other user's is denied
    assert access.allowed == ("vector.user.alice.notes", "vector.global.howto")
    assert access.denied == (Denial("vector.user.bob.x", "security_filter"),)


def test_http_search_invalid_namespace_is_invalid_input() -> None:
    # Given an invalid namespace / When decided / Then InvalidInput naming the field
    with pytest.raises(InvalidInput) as info:
        http_search_access("alice", ["vector.user.*.x"])
    assert info.value.field == "namespaces"
