"""The day a memory entry was stored, as a run's model reads it, is one day whichever way the entry reaches it.

Auto-inject writes ``Stored on <day>`` in the user's timezone, from when the entry was said (``observed_at``)
when known (SPEC §3, ``mneme.context.suffix``); the ``memory-search`` tool answered ``stored_on`` as the UTC
day the entry was written, so the same entry in the same run carried two days: a note of what was said on
21 November, imported on the 30th, was "Stored on 2026-11-21" in the message and ``stored_on: 2026-11-30`` in
the tool's result, and an entry written at 23:30 UTC was a day older for the tool than for a user in Berlin."""

from __future__ import annotations

import json
from datetime import timedelta

from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World

NAMESPACE = "vector.user.alice.notes"
READS = {"tool_read_namespaces": ["vector.user.${user_id}.*"], "read_namespaces": ["vector.user.${user_id}.*"]}
TEXT = "The harbour crane inspection is booked for the ninth."


def _days(api: Api, world: World) -> tuple[str, list[str]]:
    """The ``Stored on`` day auto-inject showed, and the ``stored_on`` days the memory-search tool answered."""
    add_agent(world, "keeper", tools=["memory-search"], memory_policy=READS)
    run = api.post("/v1/runs", {"agent_id": "keeper", "input": f"/search {TEXT}"}).body
    assert run["status"] == "succeeded", run
    [first, *_] = api.get(f"/v1/runs/{run['run_id']}/context").body["requests"]
    message = first["messages"][-1]["content"][0]["text"]
    injected = message.split("(Stored on ", 1)[1][:10]
    answered = run["output"].split("memory-search: ", 1)[1]
    return injected, [hit["stored_on"] for hit in json.loads(answered)]


def test_the_tool_dates_an_entry_by_when_it_was_said_as_auto_inject_does(api: Api, world: World) -> None:
    entry = {"namespace": NAMESPACE, "content": TEXT, "observed_at": "2026-11-21T10:00:00Z"}
    assert api.post("/v1/memory/documents", entry).status == 201
    assert _days(api, world) == ("2026-11-21", ["2026-11-21"])


def test_the_tool_dates_an_entry_in_the_users_timezone_as_auto_inject_does(api: Api, world: World) -> None:
    api.put("/v1/me/settings", {"name": "Alice", "timezone": "Europe/Berlin"})
    world.clock.at = world.clock.at.replace(hour=23, minute=30) - timedelta(days=1)  # 29 Nov, 00:30 in Berlin: the 30th
    assert api.post("/v1/memory/documents", {"namespace": NAMESPACE, "content": TEXT}).status == 201
    assert _days(api, world) == ("2026-11-30", ["2026-11-30"])


def test_in_utc_an_entry_written_at_2330_is_of_that_day_for_both(api: Api, world: World) -> None:
    world.clock.at = world.clock.at.replace(hour=23, minute=30) - timedelta(days=1)
    assert api.post("/v1/memory/documents", {"namespace": NAMESPACE, "content": TEXT}).status == 201
    assert _days(api, world) == ("2026-11-29", ["2026-11-29"])
