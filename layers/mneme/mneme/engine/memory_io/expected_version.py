"""The version a conditional change (``If-Match``) of a memory entry is based on, checked where it is written.

The claim (``conditional.claimed``) makes one conditional change win per version, but a change without
``If-Match`` (another request, the memory writer, a run's tool) claims nothing: landing between the check and
the write, it was silently overwritten by a change whose ETag was stale by then. So the conditional change
names the version it expects (:func:`expecting`) and the revisioned store, which every change goes through,
compares the entry as it is just before each change it makes (:func:`check`): another version is a 412 with
nothing changed. After each of its own changes, the version it leaves is the one expected next (a PATCH
updates content, then status). The check and the write are two calls to the store, not one atomic one: what
is left is the time between them, not the embedding of the new content.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mneme.errors import PreconditionFailed
from mneme.models.memory import MemoryDocument
from mneme.models.precondition import etag_of

_EXPECTED: ContextVar[dict[str, str] | None] = ContextVar("mneme_expected_version", default=None)

Reader = Callable[[], MemoryDocument | None]


@contextmanager
def expecting(doc_id: str, etag: str) -> Iterator[None]:
    """The changes of ``doc_id`` made inside expect it at ``etag`` (then at the version each one left)."""
    token = _EXPECTED.set({**(_EXPECTED.get() or {}), doc_id: etag})
    try:
        yield
    finally:
        _EXPECTED.reset(token)


def check(doc_id: str, read: Reader) -> None:
    """Before a change of ``doc_id``: a 412 when a conditional change expects another version than ``read()``."""
    expected = _EXPECTED.get()
    if not expected or doc_id not in expected:
        return
    current = read()
    now = etag_of(current) if current is not None else None
    if now != expected[doc_id]:
        raise PreconditionFailed(
            "If-Match: the entry was changed after you read it (by a change made meanwhile); read it again",
            details={"etag": now} if now else None,
        )


def moved(doc_id: str, read: Reader) -> None:
    """After a change of ``doc_id`` made under :func:`expecting`: its next change expects the version left."""
    expected = _EXPECTED.get()
    if expected and doc_id in expected:
        current = read()
        expected[doc_id] = etag_of(current) if current is not None else ""
