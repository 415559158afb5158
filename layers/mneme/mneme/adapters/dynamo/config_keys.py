"""The configuration items' keys in the main table: the owner's partitions (global: new, then legacy), the keys
of settings, agents, tasks and skills, and the one "own, else global" rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from mneme.adapters.dynamo.items import Key
from mneme.models.common import GLOBAL_OWNER

T = TypeVar("T")
K = TypeVar("K")

SETTINGS_SK = "SETTINGS"


GLOBAL_PK = "GLOBAL"
LEGACY_GLOBAL_PK = f"OWNER#{GLOBAL_OWNER}"


def owner_pk(owner: str) -> str:
    """The partition an owner's items are written to."""
    return GLOBAL_PK if owner == GLOBAL_OWNER else f"OWNER#{owner}"


def owner_partitions(owner: str) -> list[str]:
    """The partitions an owner's items are read from, in precedence order (global: new, then legacy)."""
    return [GLOBAL_PK, LEGACY_GLOBAL_PK] if owner == GLOBAL_OWNER else [owner_pk(owner)]


def agent_key(owner: str, agent_id: str) -> Key:
    return owner_pk(owner), f"AGENT#{agent_id}"


def task_key(owner: str, agent_id: str, task_id: str) -> Key:
    return owner_pk(owner), f"TASK#{agent_id}#{task_id}"


def skill_key(owner: str, name: str) -> Key:
    return owner_pk(owner), f"SKILL#{name}"


def keys_everywhere(owner: str, key: Key) -> list[Key]:
    """``key`` (written for ``owner``) in every partition the owner is read from."""
    return [(pk, key[1]) for pk in owner_partitions(owner)]


def settings_key(user_id: str) -> Key:
    return owner_pk(user_id), SETTINGS_SK


def visibility_order(user_id: str) -> list[str]:
    """Whose resources a user sees, in precedence order: their own, then the global ones."""
    return list(dict.fromkeys([user_id, GLOBAL_OWNER]))


def first_visible(owners: Sequence[K], lookup: Callable[[K], T | None]) -> T | None:
    """The one "own, else global" rule: the first owner (in :func:`visibility_order`) that has it."""
    for owner in owners:
        found = lookup(owner)
        if found is not None:
            return found
    return None


def everywhere(owners: Sequence[str], key: Callable[[str], Key]) -> list[Key]:
    """One logical key under each owner, in visibility order (each with its partitions, :func:`keys_everywhere`)."""
    return [k for owner in owners for k in keys_everywhere(owner, key(owner))]


def skill_key_of(owner: str, *, name: str) -> Key:
    return skill_key(owner, name)


def agent_key_of(owner: str, *, agent_id: str) -> Key:
    return agent_key(owner, agent_id)


def shown_instead(owner: str, key: Key, key_of: Callable[[str], Key]) -> list[Key]:
    """What a GET of the same URL shows when the item a write replaces (``key``) does not exist: the owner's
    other partitions (a legacy global item), then — for a user — the global item they see in its place."""
    return [k for k in everywhere(visibility_order(owner), key_of) if k != key]
