"""An auto-write a run request switched off says so (``memory_write_skipped``, docs/memory.md §12): SPEC §5.1's
``memory: {enabled: false}`` turns auto-write off for that run; the event names the run's choice, not a policy
that forbids writing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of
from tests.support.deps import World

LONG = "Please remember that the quarterly planning meeting always happens on the first Tuesday of the month."


def _skipped(api: Api, allow_write: bool, world: World, **fields: Any) -> list[dict[str, Any]]:
    add_agent(world, "master", label="Master", memory_policy={"allow_write": allow_write})
    reply = api.post("/v1/runs", {"agent_id": "master", "input": LONG, **fields})
    assert reply.status == 200 and reply.body["status"] == "succeeded", reply.text
    events = events_of(api, reply.body["run_id"])
    return [{"source": e["source"], "reason": e["reason"]} for e in events if e["type"] == "memory_write_skipped"]


def test_a_run_that_switched_memory_off_says_so(api: Api, world: World) -> None:
    skipped = _skipped(api, True, world, memory={"enabled": False})
    assert skipped == [{"source": "run", "reason": "run_memory_disabled"}]


@pytest.mark.parametrize("memory", [{"enabled": False}, None])
def test_a_policy_that_does_not_write_still_says_policy_allow_write_false(
    api: Api, world: World, memory: dict[str, Any] | None
) -> None:
    skipped = _skipped(api, False, world, **({"memory": memory} if memory else {}))
    assert skipped == [{"source": "run", "reason": "policy_allow_write_false"}]


def test_a_run_with_memory_on_writes(api: Api, world: World) -> None:
    assert _skipped(api, True, world, memory={"enabled": True}) == []
