"""DynamoDB's 400 KB item, on the three item-table backends alike: an item over it is a 413 and stores nothing
(locally it was stored, and the same save failed on AWS); one under it is stored. Strings count in UTF-8 bytes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.dynamo.item_size import MAX_ITEM_BYTES, item_bytes
from mneme.adapters.dynamo.items import PK, SK, Put
from mneme.errors import PayloadTooLarge, StoreUnavailable
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

EMOJI = "😀"  # 4 bytes in UTF-8, one character


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


def _item(sk: str, text: str) -> dict[str, Any]:
    return {PK: "USER#alice", SK: sk, "data": text}


def test_an_item_over_400_kb_in_utf8_is_a_413_and_nothing_is_stored(backend: Backend) -> None:
    big = _item("AGENT#big", EMOJI * 103_000)  # 103,000 characters, 412,000 bytes
    with pytest.raises(PayloadTooLarge, match="item too large for DynamoDB"):
        backend.main.put(big)
    assert backend.main.get("USER#alice", "AGENT#big") is None


def test_an_item_under_it_is_stored(backend: Backend) -> None:
    backend.main.put(_item("AGENT#fits", EMOJI * 99_000))  # 396,000 bytes
    stored = backend.main.get("USER#alice", "AGENT#fits")
    assert stored is not None and len(stored["data"]) == 99_000


def test_a_transaction_with_one_item_over_it_stores_none_of_its_items(backend: Backend) -> None:
    with pytest.raises(PayloadTooLarge):
        backend.main.transact([Put(_item("A#1", "small")), Put(_item("A#2", EMOJI * 103_000))])
    assert backend.main.get("USER#alice", "A#1") is None


def test_an_update_that_grows_an_item_over_it_is_refused(backend: Backend) -> None:
    backend.main.put(_item("A#grow", EMOJI * 60_000))
    with pytest.raises(PayloadTooLarge):
        backend.main.update("USER#alice", "A#grow", {"more": EMOJI * 45_000})
    stored = backend.main.get("USER#alice", "A#grow")
    assert stored is not None and "more" not in stored


def test_the_size_counts_names_and_utf8_values() -> None:
    assert item_bytes({"ab": "é"}) == 2 + 2
    assert item_bytes({"m": {"k": ["x", None]}}) == 1 + 3 + (1 + (3 + 2 + 2) + 1)
    assert item_bytes(_item("s", "x" * MAX_ITEM_BYTES)) > MAX_ITEM_BYTES


def test_a_transaction_over_4_mb_is_refused_whole_on_every_backend(backend: Backend) -> None:
    """DynamoDB refuses a TransactWriteItems whose items add up to more than 4 MB; moto and the local tables
    used to store it, so code that built such a transaction passed offline and failed on AWS."""
    parts = [Put(_item(f"T#{i:02d}", EMOJI * 90_000)) for i in range(12)]  # 12 x 360,000 bytes = 4.3 MB
    with pytest.raises(StoreUnavailable, match="4 MB"):
        backend.main.transact(parts)
    assert backend.main.get("USER#alice", "T#00") is None
    backend.main.transact(parts[:11])  # 3.96 MB: within it
    assert backend.main.get("USER#alice", "T#10") is not None
