"""Access decisions for auto-inject, memory-search, HTTP search and writes (SPEC §5.2, §5.4, §9)."""

from __future__ import annotations

import pytest

from mneme.errors import Forbidden, InvalidInput, ToolError
from mneme.memory.access import (
    NO_AUTHORIZED_NAMESPACE,
    Denial,
    DenialReason,
    MemoryToolDenied,
    MemoryWriteForbidden,
    WriteAction,
    auto_inject_access,
    covers,
    http_search_access,
    http_write_access,
    tool_search_access,
    tool_write_access,
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


# ------------------------------------------------------------------------------------------- tool writes
WRITE_POLICY = ResolvedPolicy(
    allow_tool_write=True,
    allow_tool_delete=True,
    allowed_write_namespaces=("vector.user.${user_id}.notes", "vector.global.*", "vector.agent.bob.memory"),
)


@pytest.mark.parametrize(
    ("action", "namespace", "expected"),
    [
        ("write", "vector.user.alice.notes", "vector.user.alice.notes"),
        ("write", "vector.user.${user_id}.notes", "vector.user.alice.notes"),
        ("update", "vector.user.alice.notes", "vector.user.alice.notes"),
        ("delete", "vector.user.alice.notes", "vector.user.alice.notes"),
        ("write", None, "vector.user.alice.notes"),  # default: first concrete whitelisted namespace
    ],
)
def test_tool_write_into_whitelisted_own_namespace_is_allowed(
    action: WriteAction, namespace: str | None, expected: str
) -> None:
    # Given a policy enabling writes and deletes / When a whitelisted own namespace is changed
    # Then it is allowed and resolved
    assert tool_write_access(WRITE_POLICY, ALICE, action, namespace) == expected


def test_tool_write_default_prefers_the_policys_write_namespace_when_whitelisted() -> None:
    # Given write_namespace is whitelisted / When memory-write names no namespace / Then write_namespace
    policy = WRITE_POLICY.model_copy(
        update={"allowed_write_namespaces": ("vector.user.${user_id}.notes", "vector.agent.${user_id}.*")}
    )
    assert tool_write_access(policy, ALICE, "write") == "vector.agent.alice.memory"


@pytest.mark.parametrize(
    ("policy", "action", "namespace", "reason"),
    [
        (WRITE_POLICY, "write", "vector.user.alice.memory", "not_whitelisted"),
        (ResolvedPolicy(allowed_write_namespaces=("vector.user.${user_id}.notes",)), "write",
         "vector.user.alice.notes", "tool_disabled"),
        (WRITE_POLICY.model_copy(update={"allow_tool_write": False}), "update", "vector.user.alice.notes",
         "tool_disabled"),
        (WRITE_POLICY.model_copy(update={"allow_tool_delete": False}), "delete", "vector.user.alice.notes",
         "tool_disabled"),
        (WRITE_POLICY, "write", "vector.global.howto", "admin_required"),
        (WRITE_POLICY, "delete", "vector.agent.bob.memory", "security_filter"),
    ],
)  # fmt: skip
def test_tool_write_refusals_are_tool_errors_carrying_the_denial(
    policy: ResolvedPolicy, action: WriteAction, namespace: str, reason: DenialReason
) -> None:
    # Given a refused write / When decided
    with pytest.raises(MemoryToolDenied) as info:
        tool_write_access(policy, ALICE, action, namespace)
    # Then a tool error whose denial names the namespace and the reason, for audit
    assert info.value.denial == Denial(namespace, reason)
    assert isinstance(info.value, ToolError) and info.value.message


def test_delete_needs_allow_tool_delete_even_when_writes_are_allowed() -> None:
    # Given writes enabled but deletes not / When deleting / Then refused, while a write would pass
    policy = WRITE_POLICY.model_copy(update={"allow_tool_delete": False})
    assert tool_write_access(policy, ALICE, "write", "vector.user.alice.notes")
    with pytest.raises(MemoryToolDenied, match="allow_tool_delete"):
        tool_write_access(policy, ALICE, "delete", "vector.user.alice.notes")


def test_tool_global_write_is_allowed_for_an_admin() -> None:
    # Given an admin and a whitelisted global namespace / When written / Then allowed
    assert tool_write_access(WRITE_POLICY, ADMIN, "write", "vector.global.howto") == "vector.global.howto"


@pytest.mark.parametrize(
    ("action", "namespace"),
    [("write", "vector.global.*"), ("write", "vector.user.${project_id}.x"), ("delete", None)],
)
def test_tool_write_unusable_namespace_is_a_tool_error(action: WriteAction, namespace: str | None) -> None:
    # Given a pattern, an unresolvable template or a delete without namespace / When decided / Then ToolError
    with pytest.raises(ToolError):
        tool_write_access(WRITE_POLICY, ALICE, action, namespace)


def test_tool_write_without_any_whitelist_is_refused() -> None:
    # Given writes enabled but an empty whitelist / When writing the default namespace / Then refused
    with pytest.raises(MemoryToolDenied) as info:
        tool_write_access(ResolvedPolicy(allow_tool_write=True), ALICE, "write")
    assert info.value.denial.reason == "not_whitelisted"


# ------------------------------------------------------------------------------------------- HTTP writes
@pytest.mark.parametrize(
    ("namespace", "is_admin", "expected"),
    [
        ("vector.user.alice.notes", False, "vector.user.alice.notes"),
        ("vector.agent.${user_id}.memory", False, "vector.agent.alice.memory"),
        ("vector.global.howto", True, "vector.global.howto"),
    ],
)
def test_http_write_into_own_or_admin_global_namespace(namespace: str, is_admin: bool, expected: str) -> None:
    # Given an own namespace (or global for an admin) / When decided / Then allowed
    assert http_write_access(namespace, "alice", is_admin=is_admin) == expected


@pytest.mark.parametrize(
    ("namespace", "reason"),
    [("vector.global.howto", "admin_required"), ("vector.user.bob.notes", "security_filter")],
)
def test_http_write_refusal_is_forbidden_with_the_denial(namespace: str, reason: DenialReason) -> None:
    # Given a non-admin caller / When writing global or another user's namespace / Then 403 with the denial
    with pytest.raises(MemoryWriteForbidden) as info:
        http_write_access(namespace, "alice", is_admin=False)
    assert isinstance(info.value, Forbidden) and info.value.status == 403
    assert info.value.denial == Denial(namespace, reason)


@pytest.mark.parametrize("namespace", ["vector.user.alice.*", "nope", "vector.user.${chat_id}.x"])
def test_http_write_invalid_namespace_is_invalid_input(namespace: str) -> None:
    # Given a pattern or an invalid namespace / When decided / Then 400 naming the field
    with pytest.raises(InvalidInput) as info:
        http_write_access(namespace, "alice", is_admin=True)
    assert info.value.field == "namespace"


# ------------------------------------------------------------------------------------------------ covers
@pytest.mark.parametrize(
    ("grant", "requested", "expected"),
    [
        ("vector.global.*", "vector.global.howto", True),
        ("vector.global.*", "vector.global.howto.*", True),
        ("vector.global.*", "vector.global.*", True),
        ("vector.global.howto.*", "vector.global.*", False),
        ("vector.global.howto", "vector.global.howto.*", False),
        ("vector.global.howto", "vector.global.howto", True),
    ],
)
def test_covers_is_containment_of_requested_within_grant(grant: str, requested: str, expected: bool) -> None:
    # Given a grant and a request / When checked / Then the request must lie within the grant
    assert covers(grant, requested) is expected
