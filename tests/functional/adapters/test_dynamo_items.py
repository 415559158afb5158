"""The ItemTable contract, run against DynamoDB (moto), SQLite and the in-memory fake."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from mneme.adapters.dynamo.items import (
    AUDIT_SCHEMA,
    MAIN_SCHEMA,
    AttrEquals,
    Delete,
    ItemTable,
    Put,
    TableSchema,
    Update,
    WriteOp,
    query_all,
)
from mneme.adapters.dynamo.table import DynamoItemTable
from mneme.adapters.dynamo.wire import from_dynamo, to_dynamo
from mneme.errors import Conflict, PayloadTooLarge, StoreUnavailable, Throttled
from tests.functional.adapters.item_backends import BACKENDS, MAIN, Backend, atomic_requests, make_backend
from tests.support.sam_template import table_definition


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def dynamo(tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend("dynamo", tmp_path)


def _item(pk: str, sk: str, **attrs: Any) -> dict[str, Any]:
    return {"PK": pk, "SK": sk, **attrs}


def test_put_get_round_trips_plain_values(backend: Backend) -> None:
    item = _item("P", "S", n=3, f=0.25, b=True, none=None, s="", lst=[1, "x", {"k": 1.5}], m={"a": [True]})
    backend.main.put(item)
    assert backend.main.get("P", "S") == item
    assert backend.main.get("P", "other") is None


def test_conditions(backend: Backend) -> None:
    table = backend.main
    table.put(_item("P", "S", version=1), condition="not_exists")
    with pytest.raises(Conflict):
        table.put(_item("P", "S", version=9), condition="not_exists")
    with pytest.raises(Conflict):
        table.put(_item("P", "S", version=2), condition=AttrEquals("version", 0))
    table.put(_item("P", "S", version=2), condition=AttrEquals("version", 1))
    with pytest.raises(Conflict):
        table.update("P", "missing", {"x": 1}, condition="exists")
    table.update("P", "S", {"x": 1}, condition="exists")
    assert table.get("P", "S") == _item("P", "S", version=2, x=1)
    assert table.get("P", "missing") is None


def test_transaction_is_all_or_nothing(backend: Backend) -> None:
    table = backend.main
    table.put(_item("C", "H", count=1))
    ops: list[WriteOp] = [
        Update("C", "H", {"count": 2}, AttrEquals("count", 0)),
        Put(_item("C", "M1"), "not_exists"),
    ]
    with pytest.raises(Conflict):
        table.transact(ops)
    assert table.get("C", "M1") is None
    table.transact([Update("C", "H", {"count": 2}, AttrEquals("count", 1)), Put(_item("C", "M1"), "not_exists")])
    assert table.get("C", "H") == _item("C", "H", count=2)
    assert table.get("C", "M1") == _item("C", "M1")


def test_a_transaction_deletes_items_with_the_rest_or_not_at_all(backend: Backend) -> None:
    # Given a header counting two items
    table = backend.main
    table.put_many([_item("D", "H", count=2), _item("D", "M0"), _item("D", "M1")])
    take_back: list[WriteOp] = [Update("D", "H", {"count": 1}, AttrEquals("count", 2)), Delete("D", "M1")]
    # When a transaction whose condition fails would delete one, nothing is deleted
    with pytest.raises(Conflict):
        table.transact([Update("D", "H", {"count": 1}, AttrEquals("count", 5)), Delete("D", "M1")])
    assert table.get("D", "M1") == _item("D", "M1")
    # and when its condition holds, the delete and the update happen together
    table.transact(take_back)
    assert (table.get("D", "H"), table.get("D", "M1")) == (_item("D", "H", count=1), None)


def test_a_conditional_delete_in_a_transaction(backend: Backend) -> None:
    table = backend.main
    table.put(_item("D", "H", count=0))
    with pytest.raises(Conflict):
        table.transact([Delete("D", "H", AttrEquals("count", 1))])
    assert table.get("D", "H") is not None
    table.transact([Delete("D", "H", AttrEquals("count", 0)), Delete("D", "absent")])
    assert table.get("D", "H") is None


def test_delete_and_batches(backend: Backend) -> None:
    table = backend.main
    table.put_many([_item("B", f"K{i:03d}", i=i) for i in range(60)])
    got = table.batch_get([("B", f"K{i:03d}") for i in range(0, 60, 2)] + [("B", "K000"), ("B", "nope")])
    assert sorted(item["i"] for item in got) == list(range(0, 60, 2))
    assert table.delete("B", "K000") is True
    assert table.delete("B", "K000") is False
    table.delete_many([("B", f"K{i:03d}") for i in range(1, 60)])
    assert query_all(table, "B") == []


def test_query_order_prefix_paging_and_filters(backend: Backend) -> None:
    table = backend.main
    table.put_many([_item("Q", f"A#{i:02d}", odd=i % 2) for i in range(10)] + [_item("Q", "B#00")])
    page = table.query("Q", sk_prefix="A#", limit=4)
    assert [i["SK"] for i in page.items] == ["A#00", "A#01", "A#02", "A#03"]
    assert page.last_key == {"PK": "Q", "SK": "A#03"}
    rest = table.query("Q", sk_prefix="A#", start_key=page.last_key)
    assert [i["SK"] for i in rest.items] == [f"A#{i:02d}" for i in range(4, 10)]
    assert rest.last_key is None
    back = table.query("Q", forward=False, limit=2)
    assert [i["SK"] for i in back.items] == ["B#00", "A#09"]
    back2 = table.query("Q", forward=False, limit=2, start_key=back.last_key)
    assert [i["SK"] for i in back2.items] == ["A#08", "A#07"]
    # the limit counts evaluated items: the filter may leave fewer
    filtered = table.query("Q", sk_prefix="A#", limit=4, filters={"odd": 1})
    assert [i["SK"] for i in filtered.items] == ["A#01", "A#03"]
    assert filtered.last_key == {"PK": "Q", "SK": "A#03"}


def test_index_query(backend: Backend) -> None:
    table = backend.main
    table.put_many([_item(f"P{i}", "H", GSI1PK="L", GSI1SK=f"2026-0{i}") for i in range(1, 6)] + [_item("P9", "H")])
    page = table.query("L", index="GSI1", forward=False, limit=2)
    assert [i["PK"] for i in page.items] == ["P5", "P4"]
    assert page.last_key == {"PK": "P4", "SK": "H", "GSI1PK": "L", "GSI1SK": "2026-04"}
    rest = table.query("L", index="GSI1", forward=False, start_key=page.last_key)
    assert [i["PK"] for i in rest.items] == ["P3", "P2", "P1"]


def test_utf8_byte_order(backend: Backend) -> None:
    table = backend.main
    table.put_many([_item("U", sk) for sk in ["z", "é", "a", "Z", "\U0001f600", "\uffff"]])
    assert [i["SK"] for i in query_all(table, "U")] == sorted(
        ["z", "é", "a", "Z", "\U0001f600", "\uffff"], key=str.encode
    )


def test_concurrent_conditional_writers(backend: Backend) -> None:
    """Many threads race to bump one counter: every success is a distinct increment."""
    if backend.client is not None:  # DynamoDB checks and writes an item atomically, moto does not (a lost update
        atomic_requests(backend.client)  # failed this test once in a full run): the requests serialized, not the race
    table = backend.main
    table.put(_item("T", "C", n=0))
    wins: list[int] = []

    def bump() -> None:
        for _ in range(5):
            current = table.get("T", "C")
            assert current is not None
            try:
                table.put(_item("T", "C", n=current["n"] + 1), condition=AttrEquals("n", current["n"]))
                wins.append(current["n"])
            except Conflict:
                pass

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = table.get("T", "C")
    assert final is not None
    assert sorted(wins) == list(range(final["n"]))


def test_sqlite_state_survives_reopening(tmp_path: Any) -> None:
    backends = make_backend("sqlite", tmp_path)
    backend = next(backends)
    backend.main.put(_item("P", "S", x=1.5))
    backend.audit.put(_item("USER#u", "2026", root_run_id="r"))
    assert backend.reopen is not None
    main, audit = backend.reopen()
    assert main.get("P", "S") == _item("P", "S", x=1.5)
    assert [i["SK"] for i in audit.query("r", index="ByRootRun").items] == ["2026"]
    next(backends, None)


# ----------------------------------------------------------------------------------- DynamoDB only
def test_decimal_conversion() -> None:
    assert to_dynamo(0.1) == {"N": "0.1"}
    assert from_dynamo({"N": "0.1"}) == 0.1
    assert from_dynamo({"N": "3"}) == 3
    assert isinstance(from_dynamo({"N": "3"}), int)
    assert from_dynamo(to_dynamo({"a": [1.0, 2]})) == {"a": [1.0, 2]}


def _error(code: str, message: str = "boom", **extra: Any) -> ClientError:
    response: Any = {"Error": {"Code": code, "Message": message}, **extra}
    return ClientError(response, "PutItem")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (_error("ConditionalCheckFailedException"), Conflict),
        (
            _error(
                "TransactionCanceledException",
                CancellationReasons=[{"Code": "None"}, {"Code": "ConditionalCheckFailed"}],
            ),
            Conflict,
        ),
        (_error("ProvisionedThroughputExceededException"), Throttled),
        (_error("ThrottlingException"), Throttled),
        (_error("RequestLimitExceeded"), Throttled),
        (_error("ResourceNotFoundException"), StoreUnavailable),
        (_error("AccessDeniedException"), StoreUnavailable),
        (_error("ValidationException", "Item size has exceeded the maximum allowed size"), PayloadTooLarge),
        (EndpointConnectionError(endpoint_url="http://x"), StoreUnavailable),
    ],
)
def test_errors_are_translated(error: Exception, expected: type[Exception]) -> None:
    client = mock.Mock()
    client.put_item.side_effect = error
    with pytest.raises(expected):
        DynamoItemTable(client, MAIN, MAIN_SCHEMA).put(_item("P", "S"))


def test_batch_get_retries_unprocessed_keys() -> None:
    client = mock.Mock()
    key = {"PK": {"S": "P"}, "SK": {"S": "S2"}}
    client.batch_get_item.side_effect = [
        {
            "Responses": {MAIN: [{"PK": {"S": "P"}, "SK": {"S": "S1"}}]},
            "UnprocessedKeys": {MAIN: {"Keys": [key]}},
        },
        {"Responses": {MAIN: [{"PK": {"S": "P"}, "SK": {"S": "S2"}}]}, "UnprocessedKeys": {}},
    ]
    sleeps: list[float] = []
    items = DynamoItemTable(client, MAIN, MAIN_SCHEMA, sleep=sleeps.append).batch_get([("P", "S1"), ("P", "S2")])
    assert items == [{"PK": "P", "SK": "S1"}, {"PK": "P", "SK": "S2"}]
    assert client.batch_get_item.call_args_list[1].kwargs["RequestItems"] == {MAIN: {"Keys": [key]}}
    assert len(sleeps) == 1


def test_batch_get_gives_up_as_throttled() -> None:
    client = mock.Mock()
    client.batch_get_item.return_value = {"Responses": {}, "UnprocessedKeys": {MAIN: {"Keys": [{}]}}}
    with pytest.raises(Throttled):
        DynamoItemTable(client, MAIN, MAIN_SCHEMA, sleep=lambda _: None).batch_get([("P", "S")])


def test_batch_write_retries_unprocessed_items() -> None:
    client = mock.Mock()
    request = {"PutRequest": {"Item": {"PK": {"S": "P"}, "SK": {"S": "S"}}}}
    client.batch_write_item.side_effect = [{"UnprocessedItems": {MAIN: [request]}}, {"UnprocessedItems": {}}]
    DynamoItemTable(client, MAIN, MAIN_SCHEMA, sleep=lambda _: None).put_many([_item("P", "S")])
    assert client.batch_write_item.call_count == 2


def test_missing_table_is_store_unavailable(dynamo: Backend) -> None:
    table = DynamoItemTable(dynamo.client, "no-such-table", MAIN_SCHEMA)
    with pytest.raises(StoreUnavailable):
        table.get("P", "S")


def test_writes_are_chunked_for_dynamodb_limits(dynamo: Backend) -> None:
    backend = dynamo
    backend.main.put_many([_item("W", f"{i:03d}") for i in range(60)])
    assert backend.calls.count("BatchWriteItem") == 3
    backend.calls.clear()
    assert len(backend.main.batch_get([("W", f"{i:03d}") for i in range(60)] * 2)) == 60
    assert backend.calls == ["BatchGetItem"]


@pytest.mark.parametrize(("logical_id", "schema"), [("MainTable", MAIN_SCHEMA), ("AuditTable", AUDIT_SCHEMA)])
def test_schemas_match_template(logical_id: str, schema: TableSchema) -> None:
    definition = table_definition(logical_id)
    assert [(k["AttributeName"], k["KeyType"]) for k in definition["KeySchema"]] == [
        ("PK", "HASH"),
        ("SK", "RANGE"),
    ]
    indexes = {
        index["IndexName"]: tuple(k["AttributeName"] for k in index["KeySchema"])
        for index in definition["GlobalSecondaryIndexes"]
    }
    assert indexes == dict(schema.indexes)
    assert all(i["Projection"]["ProjectionType"] == "ALL" for i in definition["GlobalSecondaryIndexes"])


def test_stores_implement_the_ports() -> None:
    """mypy checks these assignments against the port Protocols."""
    from mneme.adapters.dynamo.audit_log import ItemAuditLog
    from mneme.adapters.dynamo.chat_store import ItemChatStore
    from mneme.adapters.dynamo.config_store import ItemConfigStore
    from mneme.adapters.dynamo.run_store import ItemRunStore
    from mneme.ports.audit import AuditLog
    from mneme.ports.runs import RunStore
    from mneme.ports.stores import ChatStore, ConfigStore
    from tests.fakes.items import MemoryItemTable

    main: ItemTable = MemoryItemTable(MAIN_SCHEMA)
    config: ConfigStore = ItemConfigStore(main)
    chats: ChatStore = ItemChatStore(main)
    runs: RunStore = ItemRunStore(main)
    audit: AuditLog = ItemAuditLog(MemoryItemTable(AUDIT_SCHEMA))
    assert all([config, chats, runs, audit])


def test_a_transaction_of_more_than_100_items_is_refused_whole(backend: Backend) -> None:
    with pytest.raises(StoreUnavailable, match="100"):
        backend.main.transact([Put(_item("P", f"S{i:03d}")) for i in range(101)])
    assert backend.main.get("P", "S000") is None
    backend.main.transact([Put(_item("P", f"S{i:03d}")) for i in range(100)])
    assert backend.main.get("P", "S099") is not None
