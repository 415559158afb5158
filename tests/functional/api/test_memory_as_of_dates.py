"""``as_of`` given as a date alone (``2026-11-30``) is that whole day, as a run list's ``until`` is: what was
recalled at its end — everything written that day is found, nothing of the next. Today's date is the memory as it
is now (its end is still to come: not a 400); a day not begun yet is a 400, as any moment in the future.
Before, a date was read as the day's first instant: asking "as of Nov 30" left out all of Nov 30."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "what was ticket ZK-4471 about"
CODED = "maria filed ticket ZK-4471 for the broken badge reader"


def _search(api: Api, as_of: str) -> Any:
    return api.post("/v1/memory/search", {"query": QUERY, "min_score": 0, "as_of": as_of})


def _found(api: Api, as_of: str) -> list[str]:
    reply = _search(api, as_of)
    assert reply.status == 200, reply.text
    return [hit["id"] for hit in reply.body["hits"]]


def _written_at(api: Api, world: World, hour: int) -> str:
    world.clock.at = world.clock.at.replace(hour=hour)
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": CODED})
    assert reply.status == 201, reply.text
    return str(reply.body["ids"][0])


def test_as_of_a_past_date_holds_what_was_written_that_day(api: Api, world: World) -> None:
    entry = _written_at(api, world, 9)  # 2026-11-30T09:00Z
    world.clock.at = world.clock.at.replace(day=2, month=12)
    assert _found(api, "2026-11-30") == [entry]


def test_as_of_a_date_holds_nothing_written_the_next_day(api: Api, world: World) -> None:
    _written_at(api, world, 9)
    world.clock.at = world.clock.at.replace(day=2, month=12)
    assert _found(api, "2026-11-29") == []


def test_as_of_todays_date_is_the_memory_as_it_is_now(api: Api, world: World) -> None:
    entry = _written_at(api, world, 23)
    assert _found(api, "2026-11-30") == [entry]


def test_as_of_a_date_not_begun_yet_is_a_400(api: Api, world: World) -> None:
    _written_at(api, world, 23)
    reply = _search(api, "2026-12-01")
    assert (reply.status, reply.body["field"]) == (400, "as_of"), reply.text


def test_as_of_a_time_of_day_is_that_moment_not_its_days_end(api: Api, world: World) -> None:
    _written_at(api, world, 9)
    world.clock.at = world.clock.at.replace(day=2, month=12)
    assert _found(api, "2026-11-30T08:59:59Z") == []
