"""PrivacyLedger over the main table: export records and erasure states.

* An export record is ``PK = OWNER#<user_id>``, ``SK = EXPORT#<export_id>`` — beside the user's settings, so
  the next export lists it and an erasure deletes it — with the TTL attribute at the archive's expiry.
* An erasure state is ``PK = ERASURE#<user_id>``, ``SK = STATE``: its own partition, so it survives the
  erasure of everything else. While the erasure runs it has no TTL; once done it is kept for
  ``TOMBSTONE_DAYS`` (longer than SQS keeps any message, 14 days): the memory writer drops the queued
  writes of the user that were queued before it finished, so none can bring erased data back.

**Open jobs** (issue 31.7). While an export is ``pending`` / ``running`` and an erasure ``running``, its item
carries ``GSI1PK = PRIVACY#OPEN`` and ``GSI1SK = <written at>#<kind>#<user_id>#<job_id>`` (a sparse index:
a final record has neither), so a restarted local server, or the sweep on AWS, finds the jobs a crash left
unfinished in one query.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime, timedelta

from mneme.adapters.dynamo.config_keys import owner_pk
from mneme.adapters.dynamo.items import PK, SK, AttrEquals, Item, ItemTable, query_all
from mneme.adapters.dynamo.ttl import expired, stamp
from mneme.clock import SystemClock
from mneme.errors import Conflict
from mneme.models.privacy import ErasureState, ExportStatus
from mneme.ports.common import Clock
from mneme.ports.privacy import OpenJob, PrivacyJob

STATE_SK = "STATE"
#: how long a finished erasure's state (the writer's tombstone, the receipt) is kept
TOMBSTONE_DAYS = 30
OPEN_INDEX_PK = "PRIVACY#OPEN"


def erasure_pk(user_id: str) -> str:
    return f"ERASURE#{user_id}"


def export_sk(export_id: str) -> str:
    return f"EXPORT#{export_id}"


class ItemPrivacyLedger:
    """Reads skip items whose TTL has passed (DynamoDB deletes them only within days)."""

    def __init__(self, table: ItemTable, clock: Clock | None = None) -> None:
        self._table = table
        self._clock = clock or SystemClock()

    def _live(self, item: Item | None) -> Item | None:
        return None if item is None or expired(item, self._clock.now()) else item

    def get_export(self, user_id: str, export_id: str) -> ExportStatus | None:
        item = self._live(self._table.get(owner_pk(user_id), export_sk(export_id)))
        return ExportStatus.model_validate_json(item["data"]) if item is not None else None

    def _open(self, item: Item, job: PrivacyJob, is_open: bool) -> Item:
        if is_open:
            item["GSI1PK"] = OPEN_INDEX_PK
            item["GSI1SK"] = self._open_sk(job)
        return item

    def _open_sk(self, job: PrivacyJob) -> str:
        return f"{self._clock.now().isoformat()}#{job.kind}#{job.user_id}#{job.job_id}"

    def put_export(self, status: ExportStatus) -> None:
        item = {PK: owner_pk(status.user_id), SK: export_sk(status.export_id), "data": status.model_dump_json()}
        job = PrivacyJob("export", status.user_id, status.export_id)
        self._table.put(
            stamp(self._open(item, job, status.status in ("pending", "running")), int(status.expires_at.timestamp()))
        )

    def delete_export(self, user_id: str, export_id: str) -> None:
        self._table.delete(owner_pk(user_id), export_sk(export_id))

    def get_erasure(self, user_id: str) -> ErasureState | None:
        item = self._live(self._table.get(erasure_pk(user_id), STATE_SK))
        return ErasureState.model_validate_json(item["data"]) if item is not None else None

    def put_erasure(self, state: ErasureState) -> None:
        item = {PK: erasure_pk(state.user_id), SK: STATE_SK, "status": state.status, "data": state.model_dump_json()}
        item = self._open(item, PrivacyJob("erasure", state.user_id, state.erasure_id), state.status == "running")
        expires = state.finished_at + timedelta(days=TOMBSTONE_DAYS) if state.finished_at else None
        self._table.put(stamp(item, int(expires.timestamp()) if expires else None))

    def erasures(self, user_ids: Sequence[str]) -> dict[str, ErasureState]:
        if not user_ids:
            return {}
        items = self._table.batch_get([(erasure_pk(u), STATE_SK) for u in dict.fromkeys(user_ids)])
        states = [ErasureState.model_validate_json(item["data"]) for item in items if self._live(item)]
        return {state.user_id: state for state in states}

    def open_jobs(self) -> list[OpenJob]:
        jobs: list[OpenJob] = []
        for item in query_all(self._table, OPEN_INDEX_PK, index="GSI1"):
            if self._live(item) is None:
                continue
            at, kind, rest = str(item["GSI1SK"]).split("#", 2)
            user_id, job_id = rest.rsplit("#", 1)
            if kind in ("export", "erasure"):
                job = PrivacyJob("export" if kind == "export" else "erasure", user_id, job_id)
                jobs.append(OpenJob(job, datetime.fromisoformat(at)))
        return jobs

    def touch(self, job: PrivacyJob) -> None:
        key = (
            (owner_pk(job.user_id), export_sk(job.job_id))
            if job.kind == "export"
            else (erasure_pk(job.user_id), STATE_SK)
        )
        with contextlib.suppress(Conflict):  # only while the record is still open: a final one stays out
            self._table.update(
                *key, {"GSI1SK": self._open_sk(job)}, condition=AttrEquals(name="GSI1PK", value=OPEN_INDEX_PK)
            )
