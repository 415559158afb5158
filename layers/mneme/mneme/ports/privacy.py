"""The ports of the privacy operations (exports, erasures): beside the other ports, in their own module.

Each has an AWS adapter (``mneme.adapters``: SQS, S3, the main table), a local one (``mneme_local``) and a fake
(``tests/fakes/privacy.py``). The stores' owner-scoped listings (``iter_owned`` / ``erase_owned``) are part of
the store ports themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal, Protocol

from mneme.models.privacy import ErasureState, ExportStatus
from mneme.records import Record


class PrivacyJob(Record):
    """A privacy operation continued asynchronously (the privacy worker's SQS message body)."""

    kind: Literal["export", "erasure"]
    user_id: str
    job_id: str  # the export id / the erasure id


class OpenJob(Record):
    """A privacy job not final yet (an export ``pending`` / ``running``, an erasure ``running``), with when its
    record was last written: what a restart (or the sweep, on AWS) hands to the worker again."""

    job: PrivacyJob
    touched_at: datetime


class PrivacyJobQueue(Protocol):
    def enqueue(self, job: PrivacyJob) -> None:
        """Hand a job to the privacy worker; raise QueueUnavailable on failure."""
        ...


class PrivacyLedger(Protocol):
    """Export records (in the user's configuration partition) and erasure states (their own partition: they
    outlive the erasure as tombstones the memory writer checks)."""

    def get_export(self, user_id: str, export_id: str) -> ExportStatus | None: ...
    def put_export(self, status: ExportStatus) -> None: ...

    def delete_export(self, user_id: str, export_id: str) -> None:
        """Remove an export record (one its user's erasure overtook while it was built)."""
        ...

    def get_erasure(self, user_id: str) -> ErasureState | None: ...
    def put_erasure(self, state: ErasureState) -> None: ...

    def erasures(self, user_ids: Sequence[str]) -> dict[str, ErasureState]:
        """The erasure states of those of ``user_ids`` that have one (one batch read)."""
        ...

    def open_jobs(self) -> list[OpenJob]:
        """Every export and erasure not final yet, the least recently written first."""
        ...

    def touch(self, job: PrivacyJob) -> None:
        """Mark a job as written now while it is still open (nothing happens once it is final)."""
        ...


class ExportStorage(Protocol):
    def write(self, key: str, lines: Iterable[bytes]) -> int:
        """Store an archive from its lines (streamed); answers its size in bytes."""
        ...

    def url(self, key: str, *, filename: str, expires_in: int) -> str:
        """Where the archive's owner downloads it (S3: a presigned URL valid ``expires_in`` seconds)."""
        ...

    def delete(self, key: str) -> None:
        """Remove an archive (nothing happens when it is gone already)."""
        ...

    def erase_prefix(self, prefix: str) -> int:
        """Remove everything stored under ``prefix`` (one user's exports): finished archives and partial ones
        (S3: multipart uploads in progress are aborted; locally: ``.partial`` files). Answers how many."""
        ...

    def left_under(self, prefix: str) -> list[str]:
        """What is still stored under ``prefix``, finished or partial (an erasure verifies it is empty)."""
        ...


class DeadLetterQueue(Protocol):
    def purge_user(self, user_id: str) -> list[str]:
        """Delete the dead-lettered memory writes of ``user_id`` (owner or writer); answers their job ids."""
        ...
