"""The security filter (RLS, SPEC §5.2) over the namespace grammar: who may read and write which namespace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme.namespace_grammar import NamespaceError, parse

if TYPE_CHECKING:
    from collections.abc import Iterable


def is_readable(pattern: str, user_id: str) -> bool:
    """The security filter (RLS): global is readable by all, agent/user scopes only by their owner."""
    try:
        parsed = parse(pattern)
    except NamespaceError:
        return False
    return parsed.scope == "global" or parsed.owner == user_id


def split_readable(patterns: Iterable[str], user_id: str) -> tuple[list[str], list[str]]:
    """Partition patterns into (readable, denied), keeping order and dropping duplicates."""
    allowed: list[str] = []
    denied: list[str] = []
    for pattern in dict.fromkeys(patterns):
        (allowed if is_readable(pattern, user_id) else denied).append(pattern)
    return allowed, denied


def can_write(namespace: str, user_id: str, *, is_admin: bool) -> bool:
    """A concrete namespace the caller may write: their own agent/user scope, or global for admins."""
    try:
        parsed = parse(namespace)
    except NamespaceError:
        return False
    if parsed.wildcard:
        return False
    return is_admin if parsed.scope == "global" else parsed.owner == user_id


def own_namespaces(user_id: str) -> list[str]:
    """Everything a caller may read without naming namespaces: own agent/user scopes and global.

    A user id that is not one valid segment gets no own scopes: for ``alice.x``, ``vector.agent.alice.x.*``
    would be a sub-namespace of user ``alice``; an overlong id would give invalid patterns.
    """
    scoped = [f"vector.agent.{user_id}.*", f"vector.user.{user_id}.*"]
    return [pattern for pattern in scoped if is_readable(pattern, user_id)] + ["vector.global.*"]
