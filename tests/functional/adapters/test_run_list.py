"""A user's root runs (GET /v1/runs, issue 33.3) on the three ItemTable backends: newest first, paged by a
cursor, filtered by status, agent, chat and creation time, read from the user's own index partition only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from mneme.adapters.dynamo import run_list
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.errors import InvalidInput
from mneme.models import Run, RunStatus, Usage
from mneme.ports.runs import RunFilter
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> ItemRunStore:
    return ItemRunStore(backend.main)


def _make(n: int, user: str = "alice", **fields: Any) -> Run:
    at = fields.pop("created_at", T0 + timedelta(minutes=n))
    return Run(
        run_id=f"r{n:02d}",
        user_id=user,
        agent_id=fields.pop("agent_id", "helper"),
        root_run_id=f"r{n:02d}",
        created_at=at,
        updated_at=at,
        **fields,
    )


def _ids(store: ItemRunStore, user: str = "alice", **wanted: Any) -> list[str]:
    return [run.run_id for run in store.list_runs(user, RunFilter(**wanted)).runs]


def test_root_runs_are_listed_newest_first(store: ItemRunStore) -> None:
    for n in (1, 3, 2):
        store.create_run(_make(n))
    assert _ids(store) == ["r03", "r02", "r01"]


def test_a_sub_run_is_not_listed_its_root_is(store: ItemRunStore) -> None:
    store.create_run(_make(1, children=["c1"]))
    at = T0 + timedelta(minutes=2)
    child = Run(
        run_id="c1",
        user_id="alice",
        agent_id="sub",
        root_run_id="r01",
        parent_run_id="r01",
        depth=1,
        created_at=at,
        updated_at=at,
    )
    store.create_run(child)
    assert _ids(store) == ["r01"]


def test_pages_follow_the_cursor_without_gaps_or_repeats(store: ItemRunStore) -> None:
    for n in range(1, 6):
        store.create_run(_make(n))
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        page = store.list_runs("alice", RunFilter(limit=2, cursor=cursor))
        pages.append([run.run_id for run in page.runs])
        cursor = page.cursor
        if cursor is None:
            break
    assert pages == [["r05", "r04"], ["r03", "r02"], ["r01"]]


def test_a_page_that_holds_the_last_run_has_no_cursor(store: ItemRunStore) -> None:
    for n in (1, 2):
        store.create_run(_make(n))
    assert store.list_runs("alice", RunFilter(limit=2)).cursor is None
    assert store.list_runs("alice", RunFilter(limit=1)).cursor is not None


def test_the_status_filter_keeps_only_trees_in_that_status(store: ItemRunStore) -> None:
    store.create_run(_make(1, status=RunStatus.SUCCEEDED))
    store.create_run(_make(2, status=RunStatus.FAILED, error="boom"))
    store.create_run(_make(3, status=RunStatus.SUCCEEDED))
    assert _ids(store, status="failed") == ["r02"]
    assert _ids(store, status="succeeded") == ["r03", "r01"]


def test_a_run_that_fails_later_is_listed_as_failed(store: ItemRunStore) -> None:
    run = _make(1, status=RunStatus.RUNNING)
    store.create_run(run)
    assert _ids(store, status="failed") == []
    store.update_run(run.model_copy(update={"status": RunStatus.FAILED, "error": "RunAborted: loop"}))
    assert _ids(store, status="failed") == ["r01"]
    assert store.list_runs("alice", RunFilter()).runs[0].error == "RunAborted: loop"


def test_the_agent_filter(store: ItemRunStore) -> None:
    store.create_run(_make(1, agent_id="a1"))
    store.create_run(_make(2, agent_id="a2"))
    assert _ids(store, agent_id="a1") == ["r01"]
    assert _ids(store, agent_id="a3") == []


def test_the_chat_filter(store: ItemRunStore) -> None:
    store.create_run(_make(1, chat_id="c1"))
    store.create_run(_make(2, chat_id="c2"))
    store.create_run(_make(3))
    assert _ids(store, chat_id="c2") == ["r02"]


def test_since_and_until_bound_the_creation_time_both_included(store: ItemRunStore) -> None:
    for n in range(1, 6):
        store.create_run(_make(n))
    assert _ids(store, since=T0 + timedelta(minutes=4)) == ["r05", "r04"]
    assert _ids(store, until=T0 + timedelta(minutes=2)) == ["r02", "r01"]
    assert _ids(store, since=T0 + timedelta(minutes=2), until=T0 + timedelta(minutes=3)) == ["r03", "r02"]


def test_times_with_another_offset_compare_as_instants(store: ItemRunStore) -> None:
    store.create_run(_make(1))  # 09:01 UTC
    store.create_run(_make(2))
    plus_one = timezone(timedelta(hours=1))
    assert _ids(store, until=datetime(2026, 11, 30, 10, 1, tzinfo=plus_one)) == ["r01"]


def test_filters_combine_and_page(store: ItemRunStore) -> None:
    for n in range(1, 9):
        store.create_run(_make(n, status=RunStatus.FAILED if n % 2 else RunStatus.SUCCEEDED))
    first = store.list_runs("alice", RunFilter(status="failed", limit=2))
    second = store.list_runs("alice", RunFilter(status="failed", limit=2, cursor=first.cursor))
    assert [r.run_id for r in first.runs] == ["r07", "r05"]
    assert [r.run_id for r in second.runs] == ["r03", "r01"]


def test_another_users_runs_are_never_listed(store: ItemRunStore) -> None:
    store.create_run(_make(1, user="bob"))
    store.create_run(_make(2))
    assert _ids(store) == ["r02"]
    assert _ids(store, user="bob") == ["r01"]
    assert _ids(store, user="carol") == []


def test_a_cursor_of_another_users_listing_is_refused(store: ItemRunStore) -> None:
    for n in (1, 2):
        store.create_run(_make(n, user="bob"))
    cursor = store.list_runs("bob", RunFilter(limit=1)).cursor
    assert cursor is not None
    with pytest.raises(InvalidInput) as raised:
        store.list_runs("alice", RunFilter(cursor=cursor))
    assert raised.value.field == "cursor"


def test_a_malformed_cursor_is_refused(store: ItemRunStore) -> None:
    with pytest.raises(InvalidInput):
        store.list_runs("alice", RunFilter(cursor="not-a-cursor"))


def test_the_listed_root_carries_its_trees_usage_and_cost(store: ItemRunStore) -> None:
    store.create_run(_make(1, tree_usage=Usage(input_tokens=10, cost_usd=0.25)))
    (run,) = store.list_runs("alice", RunFilter()).runs
    assert run.tree_usage.cost_usd == 0.25


def test_a_filtered_listing_stops_after_its_rounds_with_a_cursor(
    store: ItemRunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given one failed run under 250 succeeded ones, and at most 2 query rounds of 100 per request
    monkeypatch.setattr(run_list, "MAX_ROUNDS", 2)
    store.create_run(_make(0, status=RunStatus.FAILED))
    for n in range(1, 251):
        store.create_run(_make(n, status=RunStatus.SUCCEEDED, created_at=T0 + timedelta(seconds=n)))
    first = store.list_runs("alice", RunFilter(status="failed"))
    # Then the first page is empty but says where to go on, and the next one finds the failed run
    assert first.runs == [] and first.cursor is not None
    second = store.list_runs("alice", RunFilter(status="failed", cursor=first.cursor))
    assert [r.run_id for r in second.runs] == ["r00"]
