"""PrivacyLedger over the main table: export records and erasure states.

* An export record is ``PK = OWNER#<user_id>``, ``SK = EXPORT#<export_id>`` — beside the user's settings, so
  the next export lists it and an erasure deletes it — with the TTL attribute at the archive's expiry.
* An erasure state is ``PK = ERASURE#<user_id>``, ``SK = STATE``: its own partition, so it survives the
  erasure of everything else. While the erasure runs it has no TTL; once done it is kept for
  ``TOMBSTONE_DAYS`` (longer than SQS keeps any message, 14 days): the memory writer drops the queued
  writes of the user that were queued before it finished, so none can bring erased data back.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from mneme.adapters.dynamo.config_keys import owner_pk
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable
from mneme.adapters.dynamo.ttl import expired, stamp
from mneme.clock import SystemClock
from mneme.models.privacy import ErasureState, ExportStatus
from mneme.ports.common import Clock

STATE_SK = "STATE"
#: how long a finished erasure's state (the writer's tombstone, the receipt) is kept
TOMBSTONE_DAYS = 30


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

    def put_export(self, status: ExportStatus) -> None:
        item = {PK: owner_pk(status.user_id), SK: export_sk(status.export_id), "data": status.model_dump_json()}
        self._table.put(stamp(item, int(status.expires_at.timestamp())))

    def get_erasure(self, user_id: str) -> ErasureState | None:
        item = self._live(self._table.get(erasure_pk(user_id), STATE_SK))
        return ErasureState.model_validate_json(item["data"]) if item is not None else None

    def put_erasure(self, state: ErasureState) -> None:
        item = {PK: erasure_pk(state.user_id), SK: STATE_SK, "status": state.status, "data": state.model_dump_json()}
        expires = state.finished_at + timedelta(days=TOMBSTONE_DAYS) if state.finished_at else None
        self._table.put(stamp(item, int(expires.timestamp()) if expires else None))

    def erasures(self, user_ids: Sequence[str]) -> dict[str, ErasureState]:
        if not user_ids:
            return {}
        items = self._table.batch_get([(erasure_pk(u), STATE_SK) for u in dict.fromkeys(user_ids)])
        states = [ErasureState.model_validate_json(item["data"]) for item in items if self._live(item)]
        return {state.user_id: state for state in states}
