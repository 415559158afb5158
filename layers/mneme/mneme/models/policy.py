"""Memory policy (SPEC §5.1).

:class:`MemoryPolicy` is what an agent or a task stores: every field optional, ``None`` meaning "not set"
so that a task's policy can override an agent's field by field. :class:`ResolvedPolicy` is the merged,
defaulted policy a run uses (see :func:`mneme.memory.policy.merge_policies`).
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from mneme.models.common import Flag, Number
from mneme.models.memory import NamespaceRule
from mneme.namespace_grammar import NamespaceError, validate_pattern

Pattern = Annotated[str, StringConstraints(min_length=1, max_length=512)]
PatternList = Annotated[list[Pattern], Field(max_length=32)]

DEFAULT_READ_NAMESPACES: tuple[str, ...] = ("vector.agent.${user_id}.memory", "vector.user.${user_id}.memory")
DEFAULT_WRITE_NAMESPACE = "vector.agent.${user_id}.memory"
Retrieval = Literal["vector", "hybrid", "keyword"]
Fusion = Literal["rrf", "score"]
Extraction = Literal["raw", "facts", "preferences", "summary"]
DEFAULT_RETRIEVAL: Retrieval = "hybrid"  # the winner of bench/memory_quality.py (docs/performance.md)
DEFAULT_DUPLICATE_THRESHOLD = 0.92


class ExtractionModel(BaseModel, defer_build=True):
    """The model that extracts facts / preferences / summaries (default: the agent's own model)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    model_id: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class MemoryPolicy(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid")

    auto_read_enabled: Flag | None = None
    read_namespaces: PatternList | None = None
    #: namespaces whose entries auto-inject shows whatever the question (``mneme.engine.memory_io.standing``)
    standing_namespaces: PatternList | None = None
    tool_read_namespaces: PatternList | None = None
    top_k: Annotated[int, Field(ge=1, le=20), Number] | None = None
    min_score: Annotated[float, Field(ge=0, le=10), Number] | None = None
    relative_cutoff: Annotated[float, Field(ge=0, le=1), Number] | None = None
    allow_write: Flag | None = None
    write_namespace: Pattern | None = None
    allow_tool_write: Flag | None = None
    allow_tool_delete: Flag | None = None
    allowed_write_namespaces: PatternList | None = None
    # issue 13: retrieval, consolidation, extraction, rules and recency are per agent / task configuration
    retrieval: Retrieval | None = None
    fusion: Fusion | None = None
    duplicate_threshold: Annotated[float, Field(gt=0, le=1), Number] | None = None
    extraction: Annotated[list[Extraction], Field(max_length=4)] | None = None
    extraction_model: ExtractionModel | None = None
    namespace_rules: Annotated[list[NamespaceRule], Field(max_length=32)] | None = None
    recency_decay: Annotated[float, Field(ge=0, le=10), Number] | None = None

    @field_validator("namespace_rules")
    @classmethod
    def _rules(cls, value: list[NamespaceRule] | None) -> list[NamespaceRule] | None:
        for rule in value or []:
            _check(rule.pattern)
        return value

    @field_validator("read_namespaces", "tool_read_namespaces", "allowed_write_namespaces")
    @classmethod
    def _patterns(cls, value: list[str] | None) -> list[str] | None:
        for pattern in value or []:
            _check(pattern)
        return value

    @field_validator("standing_namespaces")
    @classmethod
    def _standing(cls, value: list[str] | None) -> list[str] | None:
        for pattern in value or []:
            _one_namespace(pattern, "standing namespace")
        return value

    @field_validator("write_namespace")
    @classmethod
    def _write_namespace(cls, value: str | None) -> str | None:
        if value is not None:
            _one_namespace(value, "write_namespace")
        return value

    def patterns(self) -> list[str]:
        """Every namespace pattern the policy names, once each, in field order."""
        named = [
            *(self.read_namespaces or []),
            *(self.standing_namespaces or []),
            *(self.tool_read_namespaces or []),
            *(self.allowed_write_namespaces or []),
            *([self.write_namespace] if self.write_namespace else []),
        ]
        return list(dict.fromkeys(named))

    def hints(self) -> list[str]:
        """Hints for suspicious class suffixes (the save still succeeds)."""
        return [hint for pattern in self.patterns() if (hint := validate_pattern(pattern))]


def _one_namespace(pattern: str, what: str) -> None:
    """A valid pattern naming one namespace (``what`` names the field in the error)."""
    _check(pattern)
    if pattern.endswith(".*"):
        raise ValueError(f"{what} {pattern!r} must be one namespace, not a wildcard")


def _check(pattern: str) -> None:
    try:
        validate_pattern(pattern)
    except NamespaceError as exc:
        raise ValueError(f"invalid namespace pattern {pattern!r}: {exc.reason}") from exc


class ResolvedPolicy(BaseModel, defer_build=True):
    """The effective policy of a run: agent policy, overridden by the task's, then the defaults."""

    model_config = ConfigDict(frozen=True)

    auto_read_enabled: bool = True
    read_namespaces: tuple[str, ...] = DEFAULT_READ_NAMESPACES
    standing_namespaces: tuple[str, ...] = ()
    tool_read_namespaces: tuple[str, ...] = ()
    top_k: int = 5
    min_score: float | None = None  # None: the floor calibrated for the embedding model and retrieval mode
    relative_cutoff: float | None = None  # None: calibrated likewise (mneme.memory.embedding_limits)
    allow_write: bool = False
    write_namespace: str = DEFAULT_WRITE_NAMESPACE
    allow_tool_write: bool = False
    allow_tool_delete: bool = False
    allowed_write_namespaces: tuple[str, ...] = ()
    retrieval: Retrieval = DEFAULT_RETRIEVAL
    fusion: Fusion = "score"
    duplicate_threshold: float | None = None  # None: 0.92, or the model's calibrated threshold
    extraction: tuple[Extraction, ...] = ("raw",)
    extraction_model: ExtractionModel | None = None
    namespace_rules: tuple[NamespaceRule, ...] | None = None  # None: the deployment's (settings)
    recency_decay: float | None = None  # None: the deployment's (settings)
    switched_off: bool = False  # the run request's memory.enabled=false turned off the writes the policy allows
