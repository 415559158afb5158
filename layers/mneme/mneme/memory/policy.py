"""Memory policy merge, run overrides and strict namespace resolution for a run (SPEC §5.1, §5.2).

* :func:`merge_policies` — agent policy, overridden field by field by the task's, then the defaults.
* :func:`apply_run_overrides` — the run request's ``memory: {enabled, top_k}``.
* :class:`MemoryScope` — who runs and the template values (``${user_id}``, ``${chat_id}``, ...).
* :func:`resolve_patterns` (policies: skip + warning) and :func:`resolve_tool_namespace` (tool input:
  :class:`~mneme.errors.ToolError`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mneme.errors import InvalidInput, ToolError
from mneme.models.common import GLOBAL_OWNER
from mneme.models.policy import MemoryPolicy, ResolvedPolicy
from mneme.namespace_grammar import NamespaceError, resolve
from mneme.records import Record
from mneme.spec_limits import TOP_K_MAX, TOP_K_MIN

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from mneme.models.memory import NamespaceRule

_LIST_FIELDS = frozenset(
    {
        "read_namespaces",
        "standing_namespaces",
        "tool_read_namespaces",
        "allowed_write_namespaces",
        "extraction",
        "namespace_rules",
    }
)


class MemoryScope(Record):
    """The caller of a run (or tool call) and the values of the namespace templates.

    ``user_id`` is both the identity the security filter checks against and the value of ``${user_id}``,
    so the two can never disagree. It is propagated unchanged through every delegation level; the other
    ids are the current run's own (a sub-agent has its own ``agent_id`` / ``task_id``).
    """

    user_id: str
    is_admin: bool = False
    chat_id: str | None = None
    project_id: str | None = None
    agent_id: str | None = None
    task_id: str | None = None
    session_id: str | None = None

    def template_values(self) -> dict[str, str | None]:
        """The values for ``namespaces.resolve``."""
        return {
            "user_id": self.user_id,
            "chat_id": self.chat_id,
            "project_id": self.project_id,
            "agent_id": self.agent_id,
            "task_id": self.task_id,
            "session_id": self.session_id,
        }


def merge_policies(agent: MemoryPolicy | None, task: MemoryPolicy | None = None) -> ResolvedPolicy:
    """The effective policy: a task field that is set wins, unset fields inherit from the agent.

    Lists replace, never merge (a task's ``tool_read_namespaces`` is the whole list). Fields unset on both
    take the defaults of :class:`ResolvedPolicy`. An empty ``read_namespaces`` (``[]`` or unset) means the
    default read namespaces — also when a task sets ``[]`` over an agent's list.
    """
    values: dict[str, Any] = {}
    for name in MemoryPolicy.model_fields:
        value = getattr(task, name) if task is not None else None
        if value is None and agent is not None:
            value = getattr(agent, name)
        if value is None:
            continue
        if name in _LIST_FIELDS:
            if name == "read_namespaces" and not value:
                continue  # [] -> the defaults
            value = tuple(value)
        values[name] = value
    return ResolvedPolicy(**values)


def apply_run_overrides(
    policy: ResolvedPolicy, enabled: bool | None = None, top_k: int | None = None
) -> ResolvedPolicy:
    """Apply a run request's ``memory: {enabled, top_k}``.

    ``enabled=False`` turns off auto-inject and auto-write for this run (tool access is unchanged);
    ``enabled=True`` or ``None`` keeps the policy as it is. ``top_k`` (1..20) replaces the policy's.
    Raises :class:`~mneme.errors.InvalidInput` for a ``top_k`` out of range.
    """
    update: dict[str, Any] = {}
    if enabled is False:
        update.update(auto_read_enabled=False, allow_write=False, switched_off=policy.allow_write)
    if top_k is not None:
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not TOP_K_MIN <= top_k <= TOP_K_MAX:
            raise InvalidInput(
                f"memory.top_k must be an integer from {TOP_K_MIN} to {TOP_K_MAX}, got {top_k!r}",
                field="memory.top_k",
            )
        update["top_k"] = top_k
    return policy.model_copy(update=update) if update else policy


def resolve_patterns(patterns: Iterable[str], values: Mapping[str, str | None]) -> tuple[list[str], list[str]]:
    """Resolve a policy's patterns strictly: ``(resolved, warnings)``.

    An unusable pattern (a template value that is missing or not a valid segment, an invalid result) is
    skipped and named in a warning; duplicates after resolution are kept once, in order.
    """
    resolved: list[str] = []
    warnings: list[str] = []
    for pattern in patterns:
        try:
            namespace = resolve(pattern, values)
        except NamespaceError as exc:
            warnings.append(f"memory namespace {pattern!r} skipped: {exc.reason}")
            continue
        if namespace not in resolved:
            resolved.append(namespace)
    return resolved, warnings


def resolve_tool_namespace(pattern: str, values: Mapping[str, str | None]) -> str:
    """Resolve a namespace given as tool input strictly; an unusable one is a :class:`ToolError`."""
    try:
        return resolve(pattern, values)
    except NamespaceError as exc:
        raise ToolError(f"namespace {pattern!r} cannot be used: {exc.reason}", field="namespace") from exc


def resolved_rules(
    policy: ResolvedPolicy, deployment: Sequence[NamespaceRule], scope: MemoryScope
) -> tuple[NamespaceRule, ...]:
    """The namespace rules of a run: the policy's (else the deployment's), templates resolved strictly
    with the run's values (``vector.user.${user_id}.*``); a rule whose pattern is unusable is dropped."""
    rules = policy.namespace_rules if policy.namespace_rules is not None else tuple(deployment)
    values = scope.template_values()
    out: list[NamespaceRule] = []
    for rule in rules:
        try:
            pattern = resolve(rule.pattern, values)
        except NamespaceError:
            continue
        out.append(rule if pattern == rule.pattern else rule.model_copy(update={"pattern": pattern}))
    return tuple(out)


def tool_hints(tools: Sequence[str], policy: MemoryPolicy | None) -> list[str]:
    """What an agent's memory tools cannot do under its own policy (the save still succeeds): a tool the policy
    does not offer the model, or one it offers with no namespace to reach — SPEC §5.1's defaults reach none. A
    task's policy may still set them, which the hint says."""
    merged = merge_policies(policy)
    unless = "unless a task's memory_policy sets it"
    hints = []
    if "memory-search" in tools and not merged.tool_read_namespaces:
        hints.append(f"memory-search reaches no namespace: memory_policy.tool_read_namespaces is empty ({unless})")
    for tool, gate in (
        ("memory-write", "allow_tool_write"),
        ("memory-update", "allow_tool_write"),
        ("memory-delete", "allow_tool_delete"),
    ):
        if tool not in tools:
            continue
        if not getattr(merged, gate):
            hints.append(f"{tool} is not offered to the model: memory_policy.{gate} is false ({unless})")
        elif not merged.allowed_write_namespaces:
            hints.append(f"{tool} reaches no namespace: memory_policy.allowed_write_namespaces is empty ({unless})")
    return hints


def save_hints(policy: MemoryPolicy, tools: Sequence[str], owner: str) -> list[str]:
    """The hints an agent's or task's save (of ``owner``'s agent) answers of its memory policy — unusual classes,
    memory tools that reach nothing, another user's namespaces; the save still succeeds."""
    return policy.hints() + tool_hints(tools, policy) + foreign_hints(policy, owner, is_global=owner == GLOBAL_OWNER)


def foreign_hints(policy: MemoryPolicy, owner: str, *, is_global: bool) -> list[str]:
    """The policy's namespaces that name another user literally (``vector.user.bob.memory`` in alice's agent):
    the security filter refuses them to every run of the agent but that user's (the save still succeeds)."""
    hints = []
    for pattern in policy.patterns():
        segments = pattern.split(".")
        if len(segments) < 3 or segments[1] not in ("user", "agent") or "{" in segments[2]:
            continue  # global, or the running user's own (${user_id})
        named = segments[2]
        if is_global:
            hints.append(f"{pattern!r} belongs to user {named!r}: only that user's runs may reach it")
        elif named != owner:
            hints.append(f"{pattern!r} belongs to user {named!r}: the security filter refuses it to this agent's runs")
    return hints
