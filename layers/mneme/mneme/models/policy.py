"""Memory policy (SPEC §5.1).

:class:`MemoryPolicy` is what an agent or a task stores: every field optional, ``None`` meaning "not set"
so that a task's policy can override an agent's field by field. :class:`ResolvedPolicy` is the merged,
defaulted policy a run uses (see :func:`mneme.memory.policy.merge_policies`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from mneme.namespace_grammar import NamespaceError, validate_pattern

Pattern = Annotated[str, StringConstraints(min_length=1, max_length=512)]
PatternList = Annotated[list[Pattern], Field(max_length=32)]

DEFAULT_READ_NAMESPACES: tuple[str, ...] = ("vector.agent.${user_id}.memory", "vector.user.${user_id}.memory")
DEFAULT_WRITE_NAMESPACE = "vector.agent.${user_id}.memory"


class MemoryPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    auto_read_enabled: bool | None = None
    read_namespaces: PatternList | None = None
    tool_read_namespaces: PatternList | None = None
    top_k: Annotated[int, Field(ge=1, le=20)] | None = None
    min_score: Annotated[float, Field(ge=0, le=10)] | None = None
    relative_cutoff: Annotated[float, Field(ge=0, le=1)] | None = None
    allow_write: bool | None = None
    write_namespace: Pattern | None = None
    allow_tool_write: bool | None = None
    allow_tool_delete: bool | None = None
    allowed_write_namespaces: PatternList | None = None

    @field_validator("read_namespaces", "tool_read_namespaces", "allowed_write_namespaces")
    @classmethod
    def _patterns(cls, value: list[str] | None) -> list[str] | None:
        for pattern in value or []:
            _check(pattern)
        return value

    @field_validator("write_namespace")
    @classmethod
    def _write_namespace(cls, value: str | None) -> str | None:
        if value is not None:
            _check(value)
            if value.endswith(".*"):
                raise ValueError(f"write_namespace {value!r} must be one namespace, not a wildcard")
        return value

    def hints(self) -> list[str]:
        """Hints for suspicious class suffixes (the save still succeeds)."""
        patterns = [
            *(self.read_namespaces or []),
            *(self.tool_read_namespaces or []),
            *(self.allowed_write_namespaces or []),
            *([self.write_namespace] if self.write_namespace else []),
        ]
        return [hint for pattern in dict.fromkeys(patterns) if (hint := validate_pattern(pattern))]


def _check(pattern: str) -> None:
    try:
        validate_pattern(pattern)
    except NamespaceError as exc:
        raise ValueError(f"invalid namespace pattern {pattern!r}: {exc}") from exc


class ResolvedPolicy(BaseModel):
    """The effective policy of a run: agent policy, overridden by the task's, then the defaults."""

    model_config = ConfigDict(frozen=True)

    auto_read_enabled: bool = True
    read_namespaces: tuple[str, ...] = DEFAULT_READ_NAMESPACES
    tool_read_namespaces: tuple[str, ...] = ()
    top_k: int = 5
    min_score: float = 0.4
    relative_cutoff: float = 0.7
    allow_write: bool = False
    write_namespace: str = DEFAULT_WRITE_NAMESPACE
    allow_tool_write: bool = False
    allow_tool_delete: bool = False
    allowed_write_namespaces: tuple[str, ...] = ()
