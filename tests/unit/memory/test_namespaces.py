"""Namespace parsing, strict resolution, matching and the security filter (SPEC §5.2)."""

from __future__ import annotations

import pytest

from mneme.memory.namespaces import can_write, is_readable, own_namespaces, split_readable
from mneme.namespace_grammar import NamespaceError, matches, parse, resolve, validate_pattern

VALUES = {"user_id": "alice", "chat_id": "c1", "project_id": "p-1", "agent_id": "helper"}


@pytest.mark.parametrize(
    ("text", "scope", "owner", "wildcard"),
    [
        ("vector.agent.alice.memory", "agent", "alice", False),
        ("vector.user.alice.prefs.x", "user", "alice", False),
        ("vector.user.alice.*", "user", "alice", True),
        ("vector.global.howto", "global", None, False),
        ("vector.global.*", "global", None, True),
    ],
)
def test_valid_namespaces_parse_with_scope_and_owner(text: str, scope: str, owner: str | None, wildcard: bool) -> None:
    # Given a valid namespace or pattern / When parsed
    parsed = parse(text)
    # Then scope, owner and wildcard flag are known
    assert (parsed.scope, parsed.owner, parsed.wildcard) == (scope, owner, wildcard)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "vector",
        "vector.*",
        "vector.agent.*",
        "vector.agent.alice",
        "vector.global",
        "vector.team.x.memory",
        "vector.agent.Alice.memory",
        "vector.agent.al*.memory",
        "vector.*.alice.memory",
        "vector..x.memory",
        "vector.global.x.",
        "other.global.x",
        "vector.agent.alice\n.memory",
        "vector.global." + "a" * 600,
    ],
)
def test_invalid_namespaces_are_rejected(text: str) -> None:
    # Given an invalid namespace / When parsed / Then NamespaceError
    with pytest.raises(NamespaceError):
        parse(text)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("vector.agent.${user_id}.memory", "vector.agent.alice.memory"),
        ("vector.user.{user_id}.memory", "vector.user.alice.memory"),
        ("vector.user.${user_id}.chat-${chat_id}", "vector.user.alice.chat-c1"),
        ("vector.global.${project_id}.*", "vector.global.p-1.*"),
    ],
)
def test_templates_resolve_strictly(pattern: str, expected: str) -> None:
    # Given a pattern with templates and valid values / When resolved / Then every template is replaced
    assert resolve(pattern, VALUES) == expected


@pytest.mark.parametrize(
    ("pattern", "values"),
    [
        ("vector.agent.${user_id}.memory", {"user_id": "Alice"}),
        ("vector.agent.${user_id}.memory", {"user_id": "bob.x"}),
        ("vector.agent.${user_id}.memory", {"user_id": "alice\n"}),  # "$" would accept this
        ("vector.agent.${user_id}.memory", {"user_id": ""}),
        ("vector.agent.${user_id}.memory", {}),
        ("vector.user.alice.${session_id}", {"session_id": "*"}),
        ("vector.user.alice.${nope}", {"nope": "x"}),
        ("vector.agent.${user_id}.memory", {"user_id": "${user_id}"}),
    ],
)
def test_unusable_template_values_make_the_pattern_unusable(pattern: str, values: dict[str, str]) -> None:
    # Given a value that is not one valid segment / When resolved / Then NamespaceError
    with pytest.raises(NamespaceError):
        resolve(pattern, values)


@pytest.mark.parametrize(
    ("pattern", "namespace", "expected"),
    [
        ("vector.global.*", "vector.global.howto", True),
        ("vector.global.*", "vector.global.howto.deep", True),
        ("vector.global.howto.*", "vector.global.howto", False),
        ("vector.agent.al.*", "vector.agent.alice.memory", False),
        ("vector.global.howto", "vector.global.howto", True),
        ("vector.global.howto", "vector.global.howto2", False),
    ],
)
def test_wildcards_match_sub_namespaces_only(pattern: str, namespace: str, expected: bool) -> None:
    # Given a resolved pattern / When matched / Then '.*' is a prefix match on whole segments
    assert matches(pattern, namespace) is expected


@pytest.mark.parametrize(
    ("namespace", "readable"),
    [
        ("vector.global.howto", True),
        ("vector.global.*", True),
        ("vector.agent.alice.memory", True),
        ("vector.user.alice.*", True),
        ("vector.agent.bob.memory", False),
        ("vector.user.alicex.memory", False),
        ("vector.agent.*", False),
        ("not-a-namespace", False),
    ],
)
def test_security_filter_admits_global_and_own_scopes_only(namespace: str, readable: bool) -> None:
    # Given a caller alice / When the filter checks a namespace / Then only global and alice's own pass
    assert is_readable(namespace, "alice") is readable


def test_split_readable_keeps_order_and_drops_duplicates() -> None:
    # Given mixed patterns with a duplicate / When split
    allowed, denied = split_readable(
        ["vector.agent.bob.memory", "vector.global.*", "vector.global.*", "vector.user.alice.memory"], "alice"
    )
    # Then both partitions keep order, duplicates once
    assert allowed == ["vector.global.*", "vector.user.alice.memory"]
    assert denied == ["vector.agent.bob.memory"]


@pytest.mark.parametrize(
    ("namespace", "is_admin", "expected"),
    [
        ("vector.agent.alice.memory", False, True),
        ("vector.agent.bob.memory", False, False),
        ("vector.agent.bob.memory", True, False),
        ("vector.global.howto", False, False),
        ("vector.global.howto", True, True),
        ("vector.user.alice.*", False, False),
    ],
)
def test_writes_need_own_scope_or_admin_for_global(namespace: str, is_admin: bool, expected: bool) -> None:
    # Given a caller alice / When can_write is asked / Then own concrete namespaces, global for admins only
    assert can_write(namespace, "alice", is_admin=is_admin) is expected


def test_own_namespaces_of_a_valid_user_id() -> None:
    # Given a valid user id / When own namespaces are listed / Then agent, user and global scopes
    assert own_namespaces("alice") == ["vector.agent.alice.*", "vector.user.alice.*", "vector.global.*"]


def test_own_namespaces_never_reach_into_another_users_scope() -> None:
    # Given a user id with a dot, whose scope would be a sub-namespace of user "alice"
    # When own namespaces are listed / Then only global
    assert own_namespaces("alice.x") == ["vector.global.*"]


@pytest.mark.parametrize(
    ("pattern", "hint"),
    [
        ("vector.agent.${user_id}.memory", False),
        ("vector.global.howto", False),
        ("vector.global.*", False),
        ("vector.user.${user_id}.memroy", True),
    ],
)
def test_validate_pattern_hints_at_unusual_classes(pattern: str, hint: bool) -> None:
    # Given a pattern as saved / When validated / Then a hint only for an unusual class suffix
    assert (validate_pattern(pattern) is not None) is hint


def test_validate_pattern_names_the_invalid_pattern() -> None:
    # Given an invalid pattern / When validated / Then the error names it
    with pytest.raises(NamespaceError, match=r"vector\.\*\.x"):
        validate_pattern("vector.*.x")
