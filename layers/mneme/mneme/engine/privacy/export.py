"""Exports (``POST /v1/me/export``, ``GET /v1/me/exports/{id}``): everything mneme holds for the caller.

The archive is NDJSON, one item per line, ``{"kind", "key", "data"}``: a header (format, user, time), the
settings, agents, tasks, skills and export records, the runs with their events, recorded requests,
checkpoints, approval marks and outboxes, the chats (with their summaries) and messages, the memories of
every status (deleted and superseded ones too; expired ones are gone, as for every read), the global
memories the caller wrote, every audit record with its chain fields, and a last line with the counts by
kind. Keys are the stores' own (``<PK>|<SK>``, ``memory:<id>``): an erasure receipt's digest is over them.

A request records the export (status ``pending``), audits it (``export``) and hands it to the privacy
worker, which builds the archive: in the deployment, the privacy function behind its SQS queue; locally,
at once. The answer is the same either way: the export's status, which may already be ``ready``. A ready
export's status carries a download URL (S3: presigned, valid ``export_url_seconds``; locally: a file
route of the local server that checks the owner's token). Archives expire ``export_retention_days``
after they were requested (the bucket's lifecycle rule; the record's TTL).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from hashlib import sha256
from typing import Any

from mneme.engine.audit import request_trail
from mneme.engine.deps import Deps
from mneme.engine.privacy.owned import authored_global, user_items
from mneme.errors import MnemeError, NotFound, StoreUnavailable
from mneme.models.privacy import ExportStatus
from mneme.models.user import Caller
from mneme.ports.common import OwnedItem
from mneme.ports.privacy import ExportStorage, PrivacyJob, PrivacyJobQueue

EXPORT_FORMAT = "mneme-export/1"


def export_prefix(user_id: str) -> str:
    """Where a user's archives are stored: under a digest of the user id (ids may hold any character)."""
    return f"exports/{sha256(user_id.encode()).hexdigest()[:32]}/"


def object_key(user_id: str, export_id: str) -> str:
    return f"{export_prefix(user_id)}{export_id}.ndjson"


def _ports(deps: Deps) -> tuple[ExportStorage, PrivacyJobQueue]:
    if deps.exports is None or deps.privacy_jobs is None:
        raise StoreUnavailable("exports are not configured in this deployment")
    return deps.exports, deps.privacy_jobs


def request_export(deps: Deps, caller: Caller) -> ExportStatus:
    """Record, audit and queue an export of the caller's data; answers its status as it stands."""
    _, jobs = _ports(deps)
    now = deps.clock.now()
    export_id = f"exp-{deps.ids()}"
    status = ExportStatus(
        export_id=export_id,
        user_id=caller.user_id,
        created_at=now,
        expires_at=now + timedelta(days=deps.settings.export_retention_days),
        object_key=object_key(caller.user_id, export_id),
    )
    deps.privacy_ledger.put_export(status)
    request_trail(caller.user_id, deps.clock).write(deps.audit, "export", [None], export_id=export_id)
    jobs.enqueue(PrivacyJob("export", caller.user_id, export_id))
    return deps.privacy_ledger.get_export(caller.user_id, export_id) or status


def export_view(deps: Deps, caller: Caller, export_id: str) -> dict[str, Any]:
    """The caller's export: its status, and when ready a download URL (another user's is a 404)."""
    storage, _ = _ports(deps)
    status = deps.privacy_ledger.get_export(caller.user_id, export_id)
    if status is None:
        raise NotFound(f"no export {export_id!r}", field="export_id")
    body = status.model_dump(mode="json", exclude={"object_key", "user_id"})
    if status.status == "ready":
        seconds = deps.settings.export_url_seconds
        body["download_url"] = storage.url(status.object_key, filename=f"mneme-{export_id}.ndjson", expires_in=seconds)
        body["download_expires_at"] = (deps.clock.now() + timedelta(seconds=seconds)).isoformat()
    return body


def build_export(deps: Deps, user_id: str, export_id: str) -> ExportStatus | None:
    """The privacy worker's part: write the archive and mark the export ready (or failed, and raise, so the
    job is retried). An export that is ready already, or unknown (expired), is left alone; one its user's erasure
    overtook is removed (None)."""
    storage, _ = _ports(deps)
    status = deps.privacy_ledger.get_export(user_id, export_id)
    if status is None or status.status == "ready":
        return status
    status = status.model_copy(update={"status": "running", "error": None})
    deps.privacy_ledger.put_export(status)
    counts: Counter[str] = Counter()
    try:
        size = storage.write(status.object_key, (line.encode() for line in archive_lines(deps, status, counts)))
    except MnemeError as exc:
        deps.privacy_ledger.put_export(status.model_copy(update={"status": "failed", "error": exc.message}))
        _undone_if_erased(deps, storage, status)
        raise
    done = status.model_copy(
        update={"status": "ready", "finished_at": deps.clock.now(), "bytes": size, "counts": dict(counts)}
    )
    deps.privacy_ledger.put_export(done)
    return None if _undone_if_erased(deps, storage, status) else done


def _undone_if_erased(deps: Deps, storage: ExportStorage, status: ExportStatus) -> bool:
    """After the archive and the record are written: when the user's erasure started meanwhile (it runs, or
    finished after the export was asked for), both are removed — it may have listed the prefix and the records
    before they were written, even given its receipt, and the archive holds the data as it was before. The
    erasure state is written before it deletes anything: when it is not found here, its listings see both."""
    erasure = deps.privacy_ledger.get_erasure(status.user_id)
    if erasure is None or (erasure.finished_at is not None and erasure.finished_at <= status.created_at):
        return False
    storage.delete(status.object_key)
    deps.privacy_ledger.delete_export(status.user_id, status.export_id)
    return True


def _line(item: OwnedItem) -> str:
    return (
        json.dumps({"kind": item.kind, "key": item.key, "data": item.data}, separators=(",", ":"), default=str) + "\n"
    )


def archive_lines(deps: Deps, status: ExportStatus, counts: Counter[str]) -> Iterator[str]:
    """The archive, line by line, counting the items by kind."""
    header = {"format": EXPORT_FORMAT, "export_id": status.export_id, "user_id": status.user_id}
    yield _line(OwnedItem("export_header", f"export:{status.export_id}", {**header, "created_at": status.created_at}))
    items = [
        user_items(deps, status.user_id, include_expired=False),
        authored_global(deps, status.user_id),
        deps.audit.iter_owned(status.user_id),
    ]
    for source in items:
        for item in source:
            if item.kind == "export" and item.data.get("export_id") == status.export_id:
                continue  # this export's own record is not data of the user
            counts[item.kind] += 1
            yield _line(item)
    yield _line(OwnedItem("export_end", f"export:{status.export_id}:end", {"counts": dict(counts)}))
