"""Conditional writes of a configuration resource (RFC 9110 §13): its entity tag and what ``If-Match`` /
``If-None-Match`` ask of it.

An entity tag is a strong validator of the resource as the API shows it: a digest of the stored model's
JSON (its null fields left out, as it is stored), so two equal representations have the same tag, whichever
release wrote them. A weak tag (``W/"…"``) never matches ``If-Match`` (strong comparison); ``If-None-Match``
compares weakly.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from mneme.errors import PreconditionFailed
from mneme.records import Record

ANY = "*"


def etag_of(model: BaseModel) -> str:
    """The quoted entity tag of a stored model, e.g. ``"3f2a…"`` (20 hex digits of its SHA-256)."""
    return etag_of_json(model.model_dump_json(exclude_none=True))


def etag_of_json(stored: str) -> str:
    """The entity tag of a model's stored JSON (as :func:`etag_of` for the model it holds)."""
    return f'"{hashlib.sha256(stored.encode()).hexdigest()[:20]}"'


def _opaque(tag: str) -> str:
    return tag[2:] if tag.startswith("W/") else tag


class Precondition(Record):
    """The request's ``If-Match`` and ``If-None-Match``: ``("*",)`` or the entity tags listed, ``None`` when the
    header is absent."""

    if_match: tuple[str, ...] | None = None
    if_none_match: tuple[str, ...] | None = None

    def holds(self, current: str | None) -> bool:
        """Whether a write may replace the resource whose tag is ``current`` (``None``: it does not exist).
        ``If-Match`` is evaluated first, then ``If-None-Match`` (RFC 9110 §13.2.2: both must hold — only
        ``If-Unmodified-Since`` is skipped when ``If-Match`` is present)."""
        if self.if_match is not None and not self._matches(current):
            return False
        if self.if_none_match is not None:
            if ANY in self.if_none_match:
                return current is None
            return current is None or current not in {_opaque(tag) for tag in self.if_none_match}
        return True

    def _matches(self, current: str | None) -> bool:
        """Whether ``If-Match`` holds for ``current`` (a weak tag never equals a strong one)."""
        assert self.if_match is not None
        return current is not None and (ANY in self.if_match or current in self.if_match)

    def refusal(self, current: str | None) -> str:
        """Why the write is refused, in words a user can act on."""
        if current is None:
            return "If-Match: the resource does not exist (it was deleted, or never created)"
        if self.if_match is not None and not self._matches(current):
            return f"If-Match: the resource has changed since you read it (its ETag is now {current}); read it again"
        return f"If-None-Match: the resource exists (its ETag is {current})"

    def require(self, current: str | None) -> None:
        """Refuse, a 412 naming why and the current tag, a write this does not hold for."""
        if not self.holds(current):
            raise PreconditionFailed(self.refusal(current), details={"etag": current} if current else None)
