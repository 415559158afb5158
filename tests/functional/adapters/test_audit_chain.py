"""The audit hash chain on the three ItemTable backends: appends link up, concurrent appends never fork the
chain, a retried step's records are stored once, and every kind of tampering with a stored record (made
directly in the table) is reported at the right link — while an erasure's redaction is not."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest

from mneme.adapters.dynamo.audit_chain import REDACTED_DETAIL, head_pk
from mneme.adapters.dynamo.audit_log import ItemAuditLog, audit_item
from mneme.adapters.dynamo.items import PK, SK, query_all
from mneme.models import AuditRecord
from tests.functional.adapters.item_backends import BACKENDS, Backend, atomic_requests, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def log(backend: Backend) -> ItemAuditLog:
    return ItemAuditLog(backend.audit, sleep=lambda _: None)


def _rec(i: int, user: str = "alice", **fields: Any) -> AuditRecord:
    values: dict[str, Any] = {
        "at": T0 + timedelta(seconds=i),
        "action": "read",
        "user_id": user,
        "namespace": f"vector.user.{user}.memory",
        "detail": {"i": i, "hits": 2},
        **fields,
    }
    return AuditRecord(**values)


def _stored(backend: Backend, user: str = "alice") -> list[dict[str, Any]]:
    return sorted(query_all(backend.audit, f"USER#{user}"), key=lambda i: int(i.get("chain_seq", 0)))


def _rewrite(backend: Backend, item: dict[str, Any], **change: Any) -> None:
    """Tamper with a stored record directly in the table (no mneme code path does this)."""
    backend.audit.put({**item, **change})


def test_appended_records_form_one_chain_that_verifies(log: ItemAuditLog, backend: Backend) -> None:
    log.append([_rec(1), _rec(2)])
    log.append([_rec(3)])
    log.append([_rec(1, user="bob")])
    items = _stored(backend)
    assert [i["chain_seq"] for i in items] == [1, 2, 3]
    assert [i["chain_prev"] for i in items] == ["", items[0]["chain_digest"], items[1]["chain_digest"]]
    report = log.verify("alice")
    assert report.verified and report.records == 3 and report.first_broken is None
    assert report.head == {"seq": 3, "digest": items[2]["chain_digest"]}
    assert log.verify("bob").records == 1  # every user has a chain of their own


def test_a_record_whose_detail_was_changed_in_the_table_is_reported(log: ItemAuditLog, backend: Backend) -> None:
    log.append([_rec(i) for i in range(1, 6)])
    third = _stored(backend)[2]
    _rewrite(backend, third, detail='{"i":3,"hits":0}')
    report = log.verify("alice")
    assert not report.verified
    assert report.first_broken is not None
    assert (report.first_broken.seq, report.first_broken.key) == (3, third[SK])
    assert "detail was altered" in report.first_broken.reason


def test_a_record_whose_fields_were_changed_in_the_table_is_reported(log: ItemAuditLog, backend: Backend) -> None:
    log.append([_rec(i) for i in range(1, 4)])
    second = _stored(backend)[1]
    _rewrite(backend, second, namespace="vector.user.alice.secret")
    report = log.verify("alice")
    assert report.first_broken is not None and report.first_broken.seq == 2
    assert "altered" in report.first_broken.reason


def test_a_record_removed_from_the_middle_or_the_end_is_reported(log: ItemAuditLog, backend: Backend) -> None:
    log.append([_rec(i) for i in range(1, 5)])
    items = _stored(backend)
    backend.audit.delete(items[3][PK], items[3][SK])
    end = log.verify("alice").first_broken
    assert end is not None and end.seq == 4 and "missing" in end.reason
    backend.audit.delete(items[1][PK], items[1][SK])
    middle = log.verify("alice").first_broken
    assert middle is not None and middle.seq == 2 and "missing" in middle.reason


def test_a_forked_chain_two_records_at_one_position_is_reported(log: ItemAuditLog, backend: Backend) -> None:
    # issue 31.10: a second record claiming position 2 (a copy under another key, every link digest intact)
    log.append([_rec(i) for i in range(1, 4)])
    second = _stored(backend)[1]
    backend.audit.put({**second, SK: f"{second[SK]}#forged"})
    report = log.verify("alice")
    assert not report.verified and report.first_broken is not None
    assert report.first_broken.seq == 2 and "forked" in report.first_broken.reason


def test_a_redacted_detail_verifies_only_before_an_erasure(log: ItemAuditLog, backend: Backend) -> None:
    log.append([_rec(1), _rec(2)])
    first = _stored(backend)[0]
    # a redaction nobody sanctioned (no erasure follows it) is reported ...
    _rewrite(backend, first, detail=REDACTED_DETAIL, redacted_at="2026-12-01T00:00:00.000000Z")
    report = log.verify("alice")
    assert report.first_broken is not None and report.first_broken.seq == 1
    assert "no erasure follows" in report.first_broken.reason
    # ... one by an erasure is not: the chain covers the detail's digest, which stays
    erasure = _rec(3, action="erasure", namespace=None, detail={"erasure_id": "era-1"}, record_id="0001abcdef01")
    log.append([erasure])
    assert log.redact("alice", erasure) == 1  # record 2 (record 1 is redacted already)
    report = log.verify("alice")
    assert report.verified and report.redacted == 2
    assert [i["detail"] for i in _stored(backend)] == [REDACTED_DETAIL, REDACTED_DETAIL, erasure_detail(erasure)]


def erasure_detail(record: AuditRecord) -> str:
    return str(audit_item(record, 0)["detail"])


def test_a_retried_step_stores_its_records_once_and_the_chain_stays_whole(log: ItemAuditLog, backend: Backend) -> None:
    records = [_rec(1, record_id="0001aaaaaaaa"), _rec(2, record_id="0002bbbbbbbb")]
    log.append(records)
    log.append([*records, _rec(3, record_id="0003cccccccc")])  # the retry, plus one new record
    fresh = ItemAuditLog(backend.audit)  # another container, whose chain head is not cached
    fresh.append(records)
    assert [i["chain_seq"] for i in _stored(backend)] == [1, 2, 3]
    assert log.verify("alice").verified


def test_records_from_before_the_chain_are_counted_apart(log: ItemAuditLog, backend: Backend) -> None:
    legacy = audit_item(_rec(0), 0)  # as the log wrote items before the chain existed
    backend.audit.put(legacy)
    log.append([_rec(1)])
    report = log.verify("alice")
    assert report.verified and (report.records, report.unchained) == (1, 1)


@pytest.fixture(params=["dynamo", "sqlite"])
def shared(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    """A table several writers share: moto (its requests made atomic, as DynamoDB's are) or one SQLite file."""
    for backend in make_backend(request.param, tmp_path):
        if backend.client is not None:
            atomic_requests(backend.client)
        yield backend


def test_concurrent_appends_never_fork_the_chain(shared: Backend) -> None:
    # Given one table and eight writers, each its own log instance with its own cached head (as Lambdas
    # have), all of which read the same head before any of them appended: every first append but one races
    writers = [ItemAuditLog(shared.audit, sleep=lambda _: None) for _ in range(8)]
    for writer in writers:
        writer.warm("alice")
    errors: list[BaseException] = []

    def work(w: int) -> None:
        try:
            for n in range(6):
                writers[w].append([_rec(w * 100 + n), _rec(w * 100 + n + 50)])
        except BaseException as exc:
            errors.append(exc)

    # When they append at the same time
    with mock.patch.object(ItemAuditLog, "_not_stored", autospec=True, side_effect=ItemAuditLog._not_stored) as lost:
        threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    # Then appends did meet a moved head (and re-chained), every record is stored once, at its own
    # position, and the chain verifies to the head
    assert errors == []
    assert lost.call_count >= 7
    assert [i["chain_seq"] for i in _stored(shared)] == list(range(1, 97))
    report = writers[0].verify("alice")
    assert report.verified and report.records == 96
    assert shared.audit.get(head_pk("alice"), "HEAD")["seq"] == 96  # type: ignore[index]
