"""Preview tells the truth on long chats (issue 13.7): the stored summary is what it shows, and it warns when
the run would make a new summary."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.views.preview import SUMMARY_DUE, preview
from mneme.models.chat import Chat, TextMessage
from mneme.models.run_request import RunRequest
from tests.functional.engine.conftest import ALICE, add_agent
from tests.support.deps import World, make_world


def _chat(world: World, messages: int, *, summary: str | None = None, covers: int = 0) -> None:
    now = world.clock.now()
    history = [
        TextMessage(role=r, text=f"{r} message {i}") for i in range(messages // 2) for r in ("user", "assistant")
    ]
    chat = Chat(chat_id="c1", user_id="alice", created_at=now, updated_at=now, messages=history)
    world.deps.chats.create_chat(chat)
    if summary:
        world.deps.chats.set_summary("alice", "c1", summary, covers, [])


def _preview(world: World) -> dict[str, Any]:
    return preview(world.deps, ALICE, RunRequest(agent_id="master", input="and now?", chat_id="c1"))


def test_preview_warns_when_the_run_would_make_a_new_summary() -> None:
    world = make_world(OfflineModel(), MNEME_SUMMARY_TRIGGER_MESSAGES="4")
    add_agent(world)
    _chat(world, 8)
    assert SUMMARY_DUE in _preview(world)["warnings"]


def test_preview_does_not_warn_under_the_threshold() -> None:
    world = make_world(OfflineModel(), MNEME_SUMMARY_TRIGGER_MESSAGES="40")
    add_agent(world)
    _chat(world, 8)
    assert SUMMARY_DUE not in _preview(world)["warnings"]


def test_preview_shows_the_stored_summary_and_the_tail_only() -> None:
    world = make_world(OfflineModel(), MNEME_SUMMARY_TRIGGER_MESSAGES="40")
    add_agent(world)
    _chat(world, 8, summary="They talked about tea.", covers=6)
    answer = _preview(world)
    texts = [b.get("text", "") for m in answer["request"]["messages"] for b in m["content"]]
    assert any("They talked about tea." in t for t in texts)
    assert not any("user message 0" in t for t in texts) and any("user message 3" in t for t in texts)
    assert SUMMARY_DUE not in answer["warnings"]
