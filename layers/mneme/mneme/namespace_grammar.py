"""The namespace grammar: validation, strict template resolution and wildcard matching (SPEC §5.2).

It sits below the models (a policy validates its patterns with it); the security filter built on it lives
in :mod:`mneme.memory.namespaces`.

A namespace is ``vector.<scope>.<...>`` with scopes ``agent.<user_id>``, ``user.<user_id>`` (the id is the
*owning user*) and ``global``; every segment matches ``[a-z0-9][a-z0-9-]*``. A pattern may end in ``.*``
(prefix match); ``*`` anywhere else is invalid.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Mapping

SEGMENT = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")  # \Z, not $: "$" would accept a trailing newline
TEMPLATE_NAMES = frozenset({"user_id", "chat_id", "project_id", "agent_id", "task_id", "session_id"})
KNOWN_CLASSES = frozenset({"memory", "preferences", "howto", "temp", "drafts", "ideas"})
_TEMPLATE = re.compile(r"\$\{([^}]*)\}|\{([^}]*)\}")
_MAX_LENGTH = 512
OWNED_SCOPES = ("agent", "user")
#: the shape every namespace and pattern has (``vector.<scope>.…``): what OpenAPI clients are told; :func:`parse`
#: checks the rest and says what is wrong
SHAPE = rf"^vector\.({'|'.join((*OWNED_SCOPES, 'global'))})\..+"


class NamespaceError(ValueError):
    """A namespace or pattern is invalid, or a template could not be resolved strictly: ``str()`` quotes the text
    and says why; ``reason`` is the why alone, for a message that already names the text."""

    def __init__(self, reason: str, text: str | None = None) -> None:
        self.reason, self.text = reason, text
        super().__init__(reason if text is None else f"{text!r}: {reason}")


class ParsedNamespace(Record):
    """A syntactically valid, fully resolved namespace or pattern."""

    text: str
    scope: str  # "agent" | "user" | "global"
    owner: str | None  # the owning user id for agent/user scopes
    wildcard: bool  # ends with ".*"

    @property
    def prefix(self) -> str:
        """The literal part of a wildcard pattern, with its trailing dot (``vector.global.``)."""
        return self.text[:-1] if self.wildcard else self.text


def parse(text: str) -> ParsedNamespace:
    """Parse a resolved namespace or pattern; raise :class:`NamespaceError` naming what is wrong."""
    if not isinstance(text, str) or not text:
        raise NamespaceError("namespace is empty")
    if len(text) > _MAX_LENGTH:
        raise NamespaceError(f"namespace is longer than {_MAX_LENGTH} characters")
    segments = text.split(".")
    wildcard = segments[-1] == "*"
    body = segments[:-1] if wildcard else segments
    if any(seg == "*" or "*" in seg for seg in body):
        raise NamespaceError("'*' is only allowed as the last segment ('.*')", text)
    for seg in body:
        if not SEGMENT.match(seg):
            raise NamespaceError(f"segment {seg!r} must match [a-z0-9][a-z0-9-]*", text)
    if len(body) < 2 or body[0] != "vector":
        raise NamespaceError("a namespace starts with 'vector.<scope>' (agent, user or global)", text)
    scope = body[1]
    if scope == "global":
        if len(body) < 3 and not wildcard:
            raise NamespaceError("name a class after 'vector.global', e.g. vector.global.howto", text)
        return ParsedNamespace(text, scope, None, wildcard)
    if scope not in OWNED_SCOPES:
        raise NamespaceError(f"unknown scope {scope!r} (agent, user or global)", text)
    if len(body) < 3:
        raise NamespaceError(f"the {scope} scope needs the owning user id, e.g. vector.{scope}.${{user_id}}", text)
    if len(body) < 4 and not wildcard:
        raise NamespaceError(f"name a class after the user id, e.g. vector.{scope}.<id>.memory", text)
    return ParsedNamespace(text, scope, body[2], wildcard)


def template_names(pattern: str) -> list[str]:
    """The template variable names used in a pattern (``${x}`` or ``{x}``), in order."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _TEMPLATE.finditer(pattern)]


def resolve(pattern: str, values: Mapping[str, str | None]) -> str:
    """Resolve ``${name}`` / ``{name}`` strictly and return a valid namespace or pattern.

    A value that is missing, empty or not a valid segment makes the pattern unusable
    (:class:`NamespaceError`); so does an unknown template name or an invalid result.
    """

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1) if match.group(1) is not None else match.group(2)
        if name not in TEMPLATE_NAMES:
            raise NamespaceError(f"unknown template variable {name!r}", pattern)
        value = values.get(name)
        if not value:
            raise NamespaceError(f"{name} has no value here", pattern)
        if not SEGMENT.match(value):
            raise NamespaceError(f"{name} {value!r} is not a valid namespace segment", pattern)
        return value

    resolved = _TEMPLATE.sub(substitute, pattern)
    parse(resolved)
    return resolved


def validate_pattern(pattern: str) -> str | None:
    """Validate a pattern as saved in a policy (templates unresolved).

    Raises :class:`NamespaceError` naming the pattern when it is invalid; returns a hint when its class
    suffix is not one of :data:`KNOWN_CLASSES`, else ``None``.
    """
    placeholders = {name: "x0" for name in TEMPLATE_NAMES}
    for name in template_names(pattern):
        if name not in TEMPLATE_NAMES:
            raise NamespaceError(f"unknown template variable {name!r}", pattern)
    parsed = parse(_TEMPLATE.sub(lambda m: placeholders[m.group(1) or m.group(2)], pattern))
    if parsed.wildcard:
        return None
    last = pattern.rsplit(".", 1)[-1]
    if template_names(last) or last in KNOWN_CLASSES:
        return None
    if parsed.scope != "global" and pattern.count(".") < 3:
        return None
    return f"{pattern!r}: unusual class {last!r} (usual: {', '.join(sorted(KNOWN_CLASSES))})"


def matches(pattern: str, namespace: str) -> bool:
    """Does a resolved pattern cover a concrete namespace? ``.*`` matches every sub-namespace."""
    if pattern.endswith(".*"):
        return namespace.startswith(pattern[:-1]) and len(namespace) > len(pattern) - 1
    return pattern == namespace
