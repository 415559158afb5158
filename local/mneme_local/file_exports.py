"""Export archives in local mode: files under ``<data>/exports/``, downloaded from the local server.

The stand-in of the S3 bucket and its presigned URLs (:class:`mneme.adapters.aws.s3_exports.S3ExportStorage`):
an archive is written to a temporary file and renamed into place (a reader never sees half of one); its
download URL is ``http://127.0.0.1:<port>/_local/exports/<key>`` on the local server, which serves it only
to a request carrying the owner's token (:func:`serve_export`: the key starts with a digest of the
owner's user id). A link does not expire; the archive is deleted with the export's erasure.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mneme.errors import StoreUnavailable
from mneme_local.files import private_dir, private_writer

LOCAL_EXPORTS_PREFIX = "/_local/exports/"
_KEY = re.compile(r"^exports/([0-9a-f]{32})/(exp-[A-Za-z0-9_-]{1,64})\.ndjson$")
_PREFIX = re.compile(r"^exports/[0-9a-f]{32}/$")


class LocalFileExports:
    def __init__(self, root: str | Path, base_url: str) -> None:
        self._root = Path(root)
        self._base = base_url.rstrip("/")

    def path(self, key: str) -> Path:
        if not _KEY.match(key):
            raise StoreUnavailable(f"not an export key: {key!r}")
        return self._root / key

    def write(self, key: str, lines: Iterable[bytes]) -> int:
        target = self.path(key)
        private_dir(target.parent)  # exports/ and exports/<user hash>/ both 0700
        partial = target.with_suffix(".partial")
        size = 0
        with private_writer(partial) as out:
            for line in lines:
                size += out.write(line)
        partial.replace(target)
        return size

    def discard_partials(self) -> int:
        """Remove the partial archives a crash left (on start: no export is being written yet); their exports
        are built again when asked for. Answers how many were removed."""
        removed = 0
        for partial in self._root.glob("exports/*/exp-*.partial"):
            partial.unlink(missing_ok=True)
            removed += 1
        return removed

    def _folder(self, prefix: str) -> Path:
        if not _PREFIX.match(prefix):
            raise StoreUnavailable(f"not a user's export prefix: {prefix!r}")
        return self._root / prefix

    def left_under(self, prefix: str) -> list[str]:
        """Every file in the user's folder: archives, ``.partial`` ones, anything else."""
        folder = self._folder(prefix)
        return sorted(f"{prefix}{p.name}" for p in folder.iterdir()) if folder.is_dir() else []

    def erase_prefix(self, prefix: str) -> int:
        folder = self._folder(prefix)
        left = self.left_under(prefix)
        for name in left:
            (self._root / name).unlink(missing_ok=True)
        if folder.is_dir():
            folder.rmdir()
        return len(left)

    def url(self, key: str, *, filename: str, expires_in: int) -> str:
        return f"{self._base}{LOCAL_EXPORTS_PREFIX}{key.removeprefix('exports/')}"

    def delete(self, key: str) -> None:
        """The archive and the partial one an export interrupted by a crash left (the user's data too)."""
        target = self.path(key)
        target.with_suffix(".partial").unlink(missing_ok=True)
        target.unlink(missing_ok=True)


def serve_export(exports: LocalFileExports, path: str, user_id: str) -> tuple[int, dict[str, str], bytes]:
    """``GET /_local/exports/<key>`` for the verified ``user_id``: the archive, or a 404 (also when it is
    another user's: their archives do not exist for this caller)."""
    key = "exports/" + path.removeprefix(LOCAL_EXPORTS_PREFIX)
    match = _KEY.match(key)
    owner = hashlib.sha256(user_id.encode()).hexdigest()[:32]
    file = exports.path(key) if match else None
    if match is None or match.group(1) != owner or file is None or not file.is_file():
        return 404, {"Content-Type": "application/json"}, b'{"error":"not_found","message":"no such export"}'
    headers = {
        "Content-Type": "application/x-ndjson",
        "Content-Disposition": f'attachment; filename="mneme-{match.group(2)}.ndjson"',
    }
    return 200, headers, file.read_bytes()


class LocalPrivacyJobs:
    """The privacy queue locally: each job runs at once, in the caller's thread (a local account is small)."""

    def __init__(self) -> None:
        self.handler: Any = None

    def enqueue(self, job: Any) -> None:
        if self.handler is not None:
            self.handler(job)
