"""Small call wrappers shared by the run route tests."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.summarizer import ModelSummarizer
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World, make_world


def start(api: Api, text: str, **fields: Any) -> dict[str, Any]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": text, **fields})
    assert reply.status in (200, 202), reply.text
    body: dict[str, Any] = reply.body
    return body


def events_of(api: Api, run_id: str, **options: Any) -> list[dict[str, Any]]:
    reply = api.get(f"/v1/runs/{run_id}/events", **options)
    assert reply.status == 200
    events: list[dict[str, Any]] = reply.body["events"]
    return events


def step_event(api: Api, run_id: str, depth: int = 0) -> dict[str, Any]:
    event = {"action": "step", "run_id": run_id, "depth": depth, "delegation_refused": False, "execution_id": "x"}
    result: dict[str, Any] = api.runtime.handle(event)
    return result


def summarizing_world() -> World:
    """A world whose chats are compressed by the offline model (SPEC §4), with the agent ``master``."""
    world = make_world(OfflineModel())
    world.deps.summarizer = ModelSummarizer(OfflineModel(), "offline", provider="offline")
    add_agent(world, "master", label="Master")
    return world


def fill_chat(api: Api, runs: int, chat_id: str = "c1") -> None:
    """``runs`` runs of ``master`` in one chat (each adds two messages to its history)."""
    for i in range(runs):
        start(api, f"message number {i}", chat_id=chat_id)
