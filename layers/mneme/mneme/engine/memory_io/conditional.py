"""A conditional change of a memory entry (``If-Match`` on its PATCH or DELETE): one winner per version.

The precondition is checked on the entry as read, and the store's writes are unconditional: two requests that
read the same ETag would both pass the check and both write (the second silently undoing the first). So the
change first claims the version it is based on (``MemoryRevisions.claim``, a conditional put beside the
entry's history): the request that claims it second is a 412, as if it had read the entry after the first
change. A change that fails before it wrote gives its claim back, so reading again and retrying works. A change
without ``If-Match`` claims nothing: the store checks the version the conditional change expects just before
it writes (``expected_version``), so one landing in between is a 412 too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mneme.engine.deps import Deps
from mneme.engine.memory_io.expected_version import expecting
from mneme.errors import PreconditionFailed
from mneme.models.memory import MemoryDocument
from mneme.models.precondition import Precondition, etag_of


@contextmanager
def claimed(deps: Deps, document: MemoryDocument, precondition: Precondition | None) -> Iterator[None]:
    """Run the change of ``document`` (read, its precondition checked) as the one change based on it."""
    if precondition is None or precondition.if_match is None or deps.revisions is None:
        yield
        return
    etag = etag_of(document)
    if not deps.revisions.claim(document.owner_user_id, document.id, etag, now=deps.clock.now()):
        current = deps.memory.get(document.id, document.namespace) if deps.memory is not None else None
        now = etag_of(current) if current is not None else None
        raise PreconditionFailed(
            "If-Match: another change of this entry, based on the version you read, was made first; read it again",
            details={"etag": now} if now else None,
        )
    try:
        with expecting(document.id, etag):  # a change without If-Match landing meanwhile: a 412 too
            yield
    except BaseException:
        deps.revisions.release(document.owner_user_id, document.id, etag)
        raise
