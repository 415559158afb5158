"""``ItemTable.increment``: the atomic counter under the run-tree budget and the per-user rate limit, run
against DynamoDB (moto), SQLite and the in-memory fake."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.errors import Conflict
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture(params=["sqlite", "memory"])
def local_backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def dynamo(tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend("dynamo", tmp_path)


def test_a_missing_item_is_created_with_the_deltas_and_values(backend: Backend) -> None:
    item = backend.main.increment("P", "S", {"runs": 2, "tokens": 10}, values={"expires_at": 99})
    assert item == {"PK": "P", "SK": "S", "runs": 2, "tokens": 10, "expires_at": 99}
    assert backend.main.get("P", "S") == item


def test_deltas_add_to_what_is_stored_and_the_new_item_is_returned(backend: Backend) -> None:
    backend.main.put({"PK": "P", "SK": "S", "runs": 1, "label": "x"})
    item = backend.main.increment("P", "S", {"runs": 3, "active": -1})
    assert (item["runs"], item["active"], item["label"]) == (4, -1, "x")


def test_a_limit_refuses_an_increment_past_it_and_changes_nothing(backend: Backend) -> None:
    backend.main.put({"PK": "P", "SK": "S", "runs": 2, "tokens": 5})
    with pytest.raises(Conflict):
        backend.main.increment("P", "S", {"runs": 2, "tokens": 1}, limits={"runs": 3})
    assert backend.main.get("P", "S") == {"PK": "P", "SK": "S", "runs": 2, "tokens": 5}


def test_an_increment_up_to_the_limit_is_allowed(backend: Backend) -> None:
    backend.main.put({"PK": "P", "SK": "S", "runs": 2})
    assert backend.main.increment("P", "S", {"runs": 1}, limits={"runs": 3})["runs"] == 3


def test_a_limit_holds_for_a_missing_attribute_too(backend: Backend) -> None:
    with pytest.raises(Conflict):
        backend.main.increment("P", "S", {"count": 4}, limits={"count": 3})
    assert backend.main.get("P", "S") is None
    assert backend.main.increment("P", "S", {"count": 3}, limits={"count": 3})["count"] == 3


def test_must_exist_refuses_a_missing_item(backend: Backend) -> None:
    with pytest.raises(Conflict):
        backend.main.increment("P", "S", {"runs": 1}, must_exist=True)
    assert backend.main.get("P", "S") is None


def test_concurrent_increments_never_overshoot_the_limit(local_backend: Backend) -> None:
    # (DynamoDB's conditional UpdateItem is atomic by AWS's contract; moto does not serialize threads, so
    # the race is run against the two backends whose atomicity is this code's own)
    backend = local_backend
    # Given a counter at 0 with a limit of 5, and 12 threads each trying to take one
    backend.main.put({"PK": "P", "SK": "S", "runs": 0})
    granted: list[int] = []
    refused: list[int] = []
    barrier = threading.Barrier(12)

    def take(i: int) -> None:
        barrier.wait()
        try:
            backend.main.increment("P", "S", {"runs": 1}, limits={"runs": 5})
            granted.append(i)
        except Conflict:
            refused.append(i)

    threads = [threading.Thread(target=take, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Then exactly five got one and the counter is exactly at its limit
    assert (len(granted), len(refused)) == (5, 7)
    assert backend.main.get("P", "S")["runs"] == 5  # type: ignore[index]


def test_dynamo_sends_one_update_item(dynamo: Backend) -> None:
    backend = dynamo
    backend.calls.clear()
    backend.main.increment("P", "S", {"runs": 1}, limits={"runs": 3}, values={"x": "y"}, must_exist=False)
    assert backend.calls == ["UpdateItem"]
