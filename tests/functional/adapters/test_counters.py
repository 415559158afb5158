"""The tree ledger and the per-user rate limiter (adapters/dynamo/counters.py) on DynamoDB (moto), SQLite, the fake."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.adapters.dynamo.counters import ItemRateLimiter, ItemTreeLedger
from mneme.adapters.dynamo.ttl import Retention
from mneme.models.budget import TreeUsage
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

AT = datetime(2026, 11, 30, 9, 5, 20, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


def test_opening_twice_keeps_the_first_counters(backend: Backend) -> None:
    ledger = ItemTreeLedger(backend.main)
    ledger.open("root", TreeUsage(runs=1, model_calls=2, tokens=300, started_at=AT))
    ledger.open("root", TreeUsage(runs=1, model_calls=9, tokens=9, started_at=AT))
    assert ledger.read("root") == TreeUsage(runs=1, model_calls=2, tokens=300, active=0, started_at=AT)


def test_a_reservation_names_the_limit_that_refused_it(backend: Backend) -> None:
    ledger = ItemTreeLedger(backend.main)
    ledger.open("root", TreeUsage(runs=1, started_at=AT))
    assert ledger.reserve_run("root", max_runs=3, max_active=1).granted
    busy = ledger.reserve_run("root", max_runs=3, max_active=1)
    assert (busy.granted, busy.refused_by) == (False, "max_concurrent")
    ledger.release_run("root")
    assert ledger.reserve_run("root", max_runs=3, max_active=1).granted
    full = ledger.reserve_run("root", max_runs=3, max_active=5)
    assert (full.granted, full.refused_by, full.usage.runs if full.usage else None) == (False, "max_runs", 3)


def test_charges_add_up(backend: Backend) -> None:
    ledger = ItemTreeLedger(backend.main)
    ledger.open("root", TreeUsage(started_at=AT))
    ledger.charge("root", model_calls=1, tokens=100)
    ledger.charge("root", model_calls=1, tokens=50)
    usage = ledger.read("root")
    assert usage is not None and (usage.model_calls, usage.tokens) == (2, 150)


def test_a_tree_without_counters_is_neither_reserved_nor_charged(backend: Backend) -> None:
    ledger = ItemTreeLedger(backend.main)
    assert not ledger.reserve_run("nothing", max_runs=5, max_active=5).granted
    ledger.charge("nothing", model_calls=1, tokens=1)
    ledger.release_run("nothing")
    assert ledger.read("nothing") is None


def test_the_counters_expire_with_the_runs_retention(backend: Backend) -> None:
    ItemTreeLedger(backend.main, Retention(runs_days=2)).open("root", TreeUsage(started_at=AT))
    item = backend.main.get("RUN#root", "TREE")
    assert item is not None and item["expires_at"] == int(AT.timestamp()) + 2 * 86_400


def test_the_rate_limiter_counts_a_fixed_minute_and_says_when_it_ends(backend: Backend) -> None:
    rates = ItemRateLimiter(backend.main)
    assert [rates.hit("alice", now=AT, limit=2) for _ in range(2)] == [None, None]
    assert rates.hit("alice", now=AT, limit=2) == 40  # 09:05:20 -> the window ends at 09:06:00
    assert rates.hit("bob", now=AT, limit=2) is None
    item = backend.main.get("RATE#alice", f"RUNS#{int(AT.timestamp()) // 60 * 60}")
    assert item is not None and item["count"] == 2 and item["expires_at"] > AT.timestamp()


def test_a_refund_frees_a_place_in_the_window(backend: Backend) -> None:
    rates = ItemRateLimiter(backend.main)
    rates.hit("alice", now=AT, limit=1)
    assert rates.hit("alice", now=AT, limit=1) is not None
    rates.refund("alice", now=AT)
    assert rates.hit("alice", now=AT, limit=1) is None
