"""Write access decisions: memory tools and HTTP writes, and grant containment (SPEC §5.2, §5.4)."""

from __future__ import annotations

import pytest

from mneme.errors import Forbidden, InvalidInput, ToolError
from mneme.memory.access import (
    Denial,
    DenialReason,
    MemoryToolDenied,
    MemoryWriteForbidden,
    WriteAction,
    covers,
    http_write_access,
    tool_write_access,
)
from mneme.memory.policy import MemoryScope
from mneme.models.policy import ResolvedPolicy

ALICE = MemoryScope(user_id="alice", chat_id="c1", agent_id="helper", session_id="s1")
ADMIN = MemoryScope(user_id="root", is_admin=True)
TOOL_POLICY = ResolvedPolicy(
    tool_read_namespaces=("vector.global.*", "vector.user.${user_id}.howto", "vector.agent.bob.memory")
)


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
