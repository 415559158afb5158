"""Access decisions for every memory path (SPEC §5.2, §5.4, §9, §10).

Read decisions return a :class:`ReadAccess` with the granted namespaces *and* every denied one (with a
reason) so the caller can audit each denial (action ``denied``). Write decisions return the namespace to
write or raise an error that carries its :class:`Denial`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Literal

from mneme.errors import Forbidden, InvalidInput, MnemeError, ToolError
from mneme.memory.namespaces import can_write, is_readable, own_namespaces, split_readable
from mneme.memory.policy import resolve_patterns, resolve_tool_namespace
from mneme.namespace_grammar import NamespaceError, parse, resolve
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme.memory.policy import MemoryScope
    from mneme.models.policy import ResolvedPolicy

DenialReason = Literal[
    "security_filter",  # another user's scope, or not a valid namespace
    "not_granted",  # not covered by tool_read_namespaces
    "not_whitelisted",  # not covered by allowed_write_namespaces
    "tool_disabled",  # the policy does not enable the tool
    "admin_required",  # a global write by a non-admin
    "invalid_arguments",  # named by a tool call refused for its arguments (nothing was searched)
]
WriteAction = Literal["write", "update", "delete"]

NO_AUTHORIZED_NAMESPACE = "No authorized namespace was found for this search; nothing was searched."


class Denial(Record):
    """One namespace refused on a memory path, to be audited with action ``denied``."""

    namespace: str
    reason: DenialReason


class ReadAccess(Record):
    """The namespaces a read may reach, the denied ones, and warnings for skipped policy patterns."""

    allowed: tuple[str, ...] = ()
    denied: tuple[Denial, ...] = ()
    warnings: tuple[str, ...] = ()
    message: str | None = None  # set when nothing is left: the text of the empty result

    @property
    def empty(self) -> bool:
        """Nothing may be searched (return an empty result with :attr:`message`)."""
        return not self.allowed


class MemoryToolDenied(ToolError):
    """A memory tool call refused by the policy or the security filter; audit :attr:`denial`."""

    def __init__(self, message: str, denial: Denial):
        super().__init__(message, field="namespace", details={"namespace": denial.namespace})
        self.denial = denial


class MemoryWriteForbidden(Forbidden):
    """An HTTP memory write refused by the security filter; audit :attr:`denial`."""

    def __init__(self, message: str, denial: Denial):
        super().__init__(message, field="namespace", details={"namespace": denial.namespace})
        self.denial = denial


def covers(grant: str, requested: str) -> bool:
    """Is ``requested`` (a namespace or a ``.*`` pattern) within the resolved ``grant``?

    A concrete grant covers only itself; ``P.*`` covers every namespace below ``P`` and every pattern
    ``Q.*`` with ``Q`` equal to or below ``P`` (``vector.global.howto.*`` is within ``vector.global.*``).
    """
    if not grant.endswith(".*"):
        return requested == grant
    prefix = grant[:-1]  # "vector.global."
    if requested.endswith(".*"):
        return requested[:-1].startswith(prefix)
    return requested.startswith(prefix) and len(requested) > len(prefix)


def _denials(namespaces: Sequence[str], reason: DenialReason) -> tuple[Denial, ...]:
    return tuple(Denial(ns, reason) for ns in namespaces)


# ------------------------------------------------------------------------------------------------ reads
def auto_inject_access(policy: ResolvedPolicy, scope: MemoryScope) -> ReadAccess:
    """The namespaces auto-inject reads: resolved ``read_namespaces`` through the security filter.

    Nothing (and no warnings) when ``auto_read_enabled`` is false.
    """
    return _policy_read(policy.read_namespaces, scope) if policy.auto_read_enabled else ReadAccess()


def standing_access(policy: ResolvedPolicy, scope: MemoryScope) -> ReadAccess:
    """The standing namespaces auto-inject shows whatever the question: resolved ``standing_namespaces`` through
    the security filter. Nothing (and no warnings) when ``auto_read_enabled`` is false."""
    return _policy_read(policy.standing_namespaces, scope) if policy.auto_read_enabled else ReadAccess()


def _policy_read(patterns: Sequence[str], scope: MemoryScope) -> ReadAccess:
    resolved, warnings = resolve_patterns(patterns, scope.template_values())
    allowed, denied = split_readable(resolved, scope.user_id)
    return ReadAccess(tuple(allowed), _denials(denied, "security_filter"), tuple(warnings))


def tool_search_access(
    policy: ResolvedPolicy, scope: MemoryScope, requested: Sequence[str] | None = None
) -> ReadAccess:
    """The namespaces a ``memory-search`` call may reach (independent of ``auto_read_enabled``).

    Without ``requested`` (or an empty list): all of the resolved ``tool_read_namespaces`` that pass the
    security filter. With it: each requested namespace or pattern (templates resolved strictly — an
    unusable one is a :class:`ToolError`) must be covered by a resolved ``tool_read_namespaces`` entry
    and pass the security filter; the rest is denied. Nothing left → :attr:`ReadAccess.message`.
    """
    values = scope.template_values()
    granted, warnings = resolve_patterns(policy.tool_read_namespaces, values)
    if not requested:
        allowed, refused = split_readable(granted, scope.user_id)
        denied = _denials(refused, "security_filter")
    else:
        resolved, unusable = _resolve_all(requested, lambda item: resolve_tool_namespace(item, values))
        allowed = []
        denied_list: list[Denial] = []
        for namespace in resolved:
            if not any(covers(grant, namespace) for grant in granted):
                denied_list.append(Denial(namespace, "not_granted"))
            elif not is_readable(namespace, scope.user_id):
                denied_list.append(Denial(namespace, "security_filter"))
            else:
                allowed.append(namespace)
        denied = tuple(denied_list)
        if unusable is not None:  # the call fails, but what it tried on others' namespaces is audited
            raise _with_denials(unusable, denied)
    message = None if allowed else NO_AUTHORIZED_NAMESPACE
    return ReadAccess(tuple(allowed), denied, tuple(warnings), message)


def http_search_access(user_id: str, requested: Sequence[str] | None = None) -> ReadAccess:
    """The namespaces ``POST /v1/memory/search`` may reach.

    Without ``requested``: the caller's own scopes and global (:func:`own_namespaces`). With it: the
    security filter only. ``${user_id}`` in a requested namespace is the caller's id; any other template
    or an invalid namespace is :class:`InvalidInput` (field ``namespaces``).
    """
    unusable = None
    if not requested:
        candidates = own_namespaces(user_id)
    else:
        candidates, unusable = _resolve_all(requested, lambda item: _resolve_http(item, user_id, "namespaces"))
    allowed, denied = split_readable(candidates, user_id)
    if unusable is not None:  # the request fails, but what it tried on others' namespaces is audited
        raise _with_denials(unusable, _denials(denied, "security_filter"))
    message = None if allowed else NO_AUTHORIZED_NAMESPACE
    return ReadAccess(tuple(allowed), _denials(denied, "security_filter"), (), message)


DENIED = "denied"  #: the key of ``MnemeError.details`` holding the denials of a refused search


def denials_of(error: MnemeError) -> tuple[Denial, ...]:
    """The namespaces a refused search tried that were denied (to audit before answering the error)."""
    denied = error.details.get(DENIED, ())
    return tuple(denied) if isinstance(denied, tuple) else ()


def _with_denials(error: MnemeError, denied: tuple[Denial, ...]) -> MnemeError:
    error.details[DENIED] = denied
    return error


def _resolve_all(requested: Sequence[str], resolve_one: Callable[[str], str]) -> tuple[list[str], MnemeError | None]:
    """Every usable requested namespace, in order, once; and the first unusable one's error."""
    resolved: list[str] = []
    unusable: MnemeError | None = None
    for item in dict.fromkeys(requested):
        try:
            namespace = resolve_one(item)
        except (ToolError, InvalidInput) as exc:
            unusable = unusable or exc
            continue
        if namespace not in resolved:
            resolved.append(namespace)
    return resolved, unusable


# ----------------------------------------------------------------------------------------------- writes
def tool_write_access(
    policy: ResolvedPolicy, scope: MemoryScope, action: WriteAction, namespace: str | None = None
) -> str:
    """The namespace a ``memory-write`` / ``memory-update`` / ``memory-delete`` call may change.

    The policy must enable the tool (``allow_tool_write`` for write/update, ``allow_tool_delete`` for
    delete), the resolved namespace must be covered by the resolved ``allowed_write_namespaces`` and the
    caller must be allowed to write it (own scopes; global only for admins). Without ``namespace`` (only
    ``memory-write``) the resolved ``write_namespace`` is used when whitelisted, else the first concrete
    whitelisted namespace. Refusals raise :class:`MemoryToolDenied` (audit its ``denial``); an unusable
    namespace raises :class:`ToolError`.
    """
    values = scope.template_values()
    enabled = policy.allow_tool_delete if action == "delete" else policy.allow_tool_write
    whitelist, skipped = resolve_patterns(policy.allowed_write_namespaces, values)
    if not enabled:
        flag = "allow_tool_delete" if action == "delete" else "allow_tool_write"
        shown = namespace or policy.write_namespace
        with suppress(NamespaceError):  # else audit the text as given
            shown = resolve(shown, values)
        raise MemoryToolDenied(
            f"memory-{action} is not enabled for this agent (memory policy {flag} is false)",
            Denial(shown, "tool_disabled"),
        )
    if not namespace:
        if action != "write":
            raise ToolError(f"memory-{action} needs the entry's namespace", field="namespace")
        target = _default_write_target(policy, values, whitelist)
    else:
        target = resolve_tool_namespace(namespace, values)
    if target.endswith(".*"):
        raise ToolError(f"namespace {target!r} must be one namespace, not a pattern", field="namespace")
    if not any(covers(grant, target) for grant in whitelist):
        allowed = "; ".join([", ".join(whitelist) or "none", *skipped])  # why a pattern allows nothing in this run
        raise MemoryToolDenied(
            f"namespace {target!r} is not in the allowed write namespaces ({allowed})",
            Denial(target, "not_whitelisted"),
        )
    if not can_write(target, scope.user_id, is_admin=scope.is_admin):
        global_scope = parse(target).scope == "global"
        reason: DenialReason = "admin_required" if global_scope else "security_filter"
        why = "only an admin may write global memory" if global_scope else "it belongs to another user"
        raise MemoryToolDenied(f"namespace {target!r} cannot be written: {why}", Denial(target, reason))
    return target


def _default_write_target(policy: ResolvedPolicy, values: dict[str, str | None], whitelist: list[str]) -> str:
    try:
        home: str | None = resolve(policy.write_namespace, values)
    except NamespaceError:
        home = None
    if home is not None and any(covers(grant, home) for grant in whitelist):
        return home
    concrete = [ns for ns in whitelist if not ns.endswith(".*")]
    if concrete:
        return concrete[0]
    if home is not None:
        return home  # refused below with a message naming the whitelist
    raise ToolError("name the namespace to write (no default write namespace is usable)", field="namespace")


def http_write_access(namespace: str, user_id: str, *, is_admin: bool) -> str:
    """The namespace ``POST /v1/memory/documents`` (or a document delete) may change.

    Own agent/user scopes; global only for admins (:class:`MemoryWriteForbidden`, a 403, otherwise).
    ``${user_id}`` is the caller's id; another template or an invalid namespace is :class:`InvalidInput`.
    """
    target = http_namespace(namespace, user_id)
    if can_write(target, user_id, is_admin=is_admin):
        return target
    if parse(target).scope == "global":
        raise MemoryWriteForbidden(
            f"only an admin may write global memory ({target!r})", Denial(target, "admin_required")
        )
    raise MemoryWriteForbidden(f"namespace {target!r} belongs to another user", Denial(target, "security_filter"))


def http_delete_allowed(namespace: str, user_id: str, *, is_admin: bool) -> bool:
    """May ``DELETE /v1/memory/documents/{id}`` remove an entry of ``namespace``? The same rule as a write:
    own scopes, global for admins. When not, another user's entry is answered as not found, and a global entry
    (which every user reads) is a 403."""
    return can_write(namespace, user_id, is_admin=is_admin)


def http_namespace(namespace: str, user_id: str) -> str:
    """One namespace a request names (``${user_id}`` resolved): an invalid one or a pattern is a 400 naming it."""
    target = _resolve_http(namespace, user_id, "namespace")
    if target.endswith(".*"):
        raise InvalidInput(f"namespace {target!r} must be one namespace, not a pattern", field="namespace")
    return target


def _resolve_http(namespace: str, user_id: str, field_name: str) -> str:
    try:
        return resolve(namespace, {"user_id": user_id})
    except NamespaceError as exc:
        raise InvalidInput(f"invalid namespace {namespace!r}: {exc.reason}", field=field_name) from exc
