"""The audit log port (SPEC §9): append-only, hash-chained per user, paged reads.

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mneme.models import (
    AuditRecord,
)
from mneme.ports.common import OwnedItem
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from mneme.models.privacy import ChainReport


class AuditPage(Record):
    records: list[AuditRecord]
    cursor: str | None


class AuditLog(Protocol):
    def append(self, records: Sequence[AuditRecord]) -> None:
        """Append records (never update); raise AuditWriteFailed when any could not be written."""
        ...

    def query(
        self,
        user_id: str,
        *,
        run_id: str | None = None,
        namespace: str | None = None,
        action: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> AuditPage:
        """One user's records, newest first, filtered, paged by an opaque cursor."""
        ...

    def by_root_run(self, root_run_id: str) -> list[AuditRecord]:
        """Every record of one delegation tree, oldest first."""
        ...

    def warm(self, user_id: str) -> None:
        """Read what the user's next append needs (the chain head) ahead of it, beside other I/O."""
        ...

    def iter_owned(self, user_id: str) -> Iterator[OwnedItem]:
        """Every record of the user as stored (with its chain fields), oldest first."""
        ...

    def redact(self, user_id: str, through: AuditRecord) -> int:
        """Replace the ``detail`` of every record of the user chained before ``through`` (a stored record:
        the erasure's own), and of records from before the chain; answers how many were redacted. The one
        sanctioned rewrite of audit records: the chain covers a digest of the detail, which stays."""
        ...

    def verify(self, user_id: str) -> ChainReport:
        """Check the user's hash chain from the first record to the chain head; name the first broken link."""
        ...


# --------------------------------------------------------------------------------------------- config
