"""AuditLog on the three ItemTable backends (its own table: USER# partitions, GSI ByRootRun)."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from botocore.exceptions import ClientError

from mneme.adapters.dynamo.audit_log import ItemAuditLog, audit_item
from mneme.adapters.dynamo.cursors import encode_cursor
from mneme.adapters.dynamo.items import query_all
from mneme.errors import AuditWriteFailed, InvalidInput
from mneme.models import AuditRecord
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def log(backend: Backend) -> ItemAuditLog:
    return ItemAuditLog(backend.audit)


def _rec(i: int, user: str = "alice", **fields: Any) -> AuditRecord:
    values: dict[str, Any] = {
        "at": T0 + timedelta(seconds=i, microseconds=i),
        "action": "read",
        "user_id": user,
        "namespace": "vector.user.alice.memory",
        "run_id": f"r{i % 3}",
        "detail": {"i": i, "top_k": 5, "score": 0.75},
        **fields,
    }
    return AuditRecord(**values)


def _all_pages(log: ItemAuditLog, user: str, limit: int, **filters: Any) -> list[list[AuditRecord]]:
    pages, cursor = [], None
    while True:
        page = log.query(user, limit=limit, cursor=cursor, **filters)
        pages.append(page.records)
        if page.cursor is None:
            return pages
        cursor = page.cursor


def test_append_and_query_own_records_newest_first(log: ItemAuditLog) -> None:
    records = [_rec(i) for i in range(5)] + [_rec(9, user="bob")]
    log.append(records)
    page = log.query("alice")
    assert page.records == list(reversed(records[:5]))
    assert page.cursor is None
    assert log.query("bob").records == [records[5]]
    assert log.query("carol").records == []


def test_filters(log: ItemAuditLog) -> None:
    log.append([_rec(i, action="write" if i % 4 == 0 else "read") for i in range(12)])
    log.append([_rec(20, namespace="vector.global.docs", action="denied")])
    assert [r.detail["i"] for r in log.query("alice", action="write").records] == [8, 4, 0]
    assert [r.detail["i"] for r in log.query("alice", run_id="r1").records] == [10, 7, 4, 1]
    assert [r.detail["i"] for r in log.query("alice", run_id="r1", action="write").records] == [4]
    assert [r.action for r in log.query("alice", namespace="vector.global.docs").records] == ["denied"]


def test_cursor_pages_without_loss_or_repeat(log: ItemAuditLog) -> None:
    records = [_rec(i) for i in range(23)]
    log.append(records)
    pages = _all_pages(log, "alice", 5)
    assert [len(p) for p in pages] == [5, 5, 5, 5, 3]
    assert [r for page in pages for r in page] == list(reversed(records))


def test_filtered_pages_fill_up(log: ItemAuditLog) -> None:
    """Matches are rare (1 in 50): each page still holds ``limit`` records while more exist."""
    log.append([_rec(i, action="delete" if i % 50 == 0 else "read") for i in range(500)])
    pages = _all_pages(log, "alice", 3, action="delete")
    assert [len(p) for p in pages] == [3, 3, 3, 1]
    assert [r.detail["i"] for page in pages for r in page] == list(range(450, -1, -50))


def test_tampered_or_foreign_cursor_is_invalid_input(log: ItemAuditLog) -> None:
    log.append([_rec(i) for i in range(4)] + [_rec(i, user="bob") for i in range(4)])
    bobs = log.query("bob", limit=2).cursor
    assert bobs is not None
    raw = json.loads(base64.urlsafe_b64decode(bobs + "=="))
    forged = encode_cursor({"PK": "USER#alice", "SK": raw["SK"] + "x"})
    for cursor in [bobs, "not-base64!!", "e30", forged, bobs[:-3], base64.urlsafe_b64encode(b"[1]").decode()]:
        with pytest.raises(InvalidInput) as err:
            log.query("alice", cursor=cursor)
        assert err.value.status == 400 and err.value.field == "cursor"
    assert len(log.query("bob", cursor=bobs).records) == 2


@pytest.mark.parametrize("limit", [0, -1, 501])
def test_limit_is_validated(log: ItemAuditLog, limit: int) -> None:
    with pytest.raises(InvalidInput):
        log.query("alice", limit=limit)


def test_by_root_run_via_gsi_oldest_first(log: ItemAuditLog, backend: Backend) -> None:
    tree = [_rec(i, root_run_id="root", depth=i % 2, action="delegation") for i in (3, 1, 2)]
    log.append([*tree, _rec(5, root_run_id="other"), _rec(6)])
    log.append([_rec(4, user="bob", root_run_id="root")])
    got = log.by_root_run("root")
    assert [(r.user_id, r.detail["i"]) for r in got] == [("alice", 1), ("alice", 2), ("alice", 3), ("bob", 4)]
    assert log.by_root_run("none") == []
    if backend.name == "dynamo":
        backend.calls.clear()
        log.by_root_run("root")
        assert backend.calls == ["Query"]


def test_item_shape_is_sparse(log: ItemAuditLog, backend: Backend) -> None:
    log.append([AuditRecord(at=T0, action="approval", user_id="alice")])
    (item,) = query_all(backend.audit, "USER#alice")
    assert item["SK"].startswith("2026-11-30T09:00:00.000000Z#-#0000")
    assert "root_run_id" not in item and "namespace" not in item and "run_id" not in item
    (record,) = log.query("alice").records
    assert record == AuditRecord(at=T0, action="approval", user_id="alice")


def test_conditional_put_never_overwrites(log: ItemAuditLog, backend: Backend) -> None:
    fixed = uuid.UUID(int=7)
    with mock.patch("mneme.adapters.dynamo.audit_log.uuid.uuid4", return_value=fixed):
        log.append([_rec(1)])
        with pytest.raises(AuditWriteFailed):
            log.append([_rec(1, action="delete")])
    assert [r.action for r in log.query("alice").records] == ["read"]
    assert audit_item(_rec(1), 0)["SK"] != audit_item(_rec(1), 0)["SK"]  # unique without the patch


def test_put_failure_raises_audit_write_failed(log: ItemAuditLog, backend: Backend) -> None:
    error = ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "x"}}, "PutItem")
    with (
        mock.patch.object(
            backend.audit, "transact", side_effect=error if backend.name == "dynamo" else OSError("disk")
        ),
        pytest.raises(AuditWriteFailed) as err,
    ):
        log.append([_rec(1)])
    assert err.value.code == "audit_unavailable"


@pytest.fixture
def dynamo(tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend("dynamo", tmp_path)


def test_dynamo_client_failure_raises_audit_write_failed(dynamo: Backend) -> None:
    backend = dynamo
    log = ItemAuditLog(backend.audit)

    def boom(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "InternalServerError", "Message": "down"}}, "TransactWriteItems")

    backend.client.meta.events.register("before-call.dynamodb.TransactWriteItems", boom)
    with pytest.raises(AuditWriteFailed):
        log.append([_rec(1)])


def test_several_records_are_one_round_trip(dynamo: Backend) -> None:
    # Given a log that appended for alice before (it knows her chain head)
    log = ItemAuditLog(dynamo.audit)
    log.append([_rec(0)])
    dynamo.calls.clear()
    # When the two read records of one auto-inject are appended
    log.append([_rec(1), _rec(2)])
    # Then one transaction wrote both, with the moved chain head
    assert dynamo.calls == ["TransactWriteItems"]
    assert len(log.query("alice").records) == 3


def test_the_first_append_of_an_instance_reads_the_chain_head_once(dynamo: Backend) -> None:
    log = ItemAuditLog(dynamo.audit)
    dynamo.calls.clear()
    log.append([_rec(1)])
    log.append([_rec(2)])
    assert dynamo.calls == ["GetItem", "TransactWriteItems", "TransactWriteItems"]


def test_a_retried_append_with_record_ids_stores_each_record_once(log: ItemAuditLog) -> None:
    records = [_rec(1, record_id="0001aaaaaaaa"), _rec(2, record_id="0002bbbbbbbb")]
    log.append(records)
    log.append(records)
    assert len(log.query("alice").records) == 2


def test_a_warmed_log_appends_without_reading_the_chain_head(dynamo: Backend) -> None:
    # Given a log that read alice's chain head ahead of time (a run does so while it embeds the query)
    log = ItemAuditLog(dynamo.audit)
    log.append([_rec(0)])
    fresh = ItemAuditLog(dynamo.audit)
    fresh.warm("alice")
    dynamo.calls.clear()
    # When the run's read records are appended
    fresh.append([_rec(1), _rec(2)])
    # Then the append is the transaction alone, chained after the existing record
    assert dynamo.calls == ["TransactWriteItems"]
    assert fresh.verify("alice").records == 3
