"""A run that does not succeed leaves nothing in the chat: when a cancel lands between a step's chat write
and its commit, or the step crashes after the write, the turn is taken back — unless the chat moved on. A
retried step whose earlier attempt stored the turn takes that turn back in the same cases."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.engine.runs import cancel, service
from mneme.errors import RunFailedUnexpectedly, StoreUnavailable
from mneme.models.chat import TextMessage
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import ALICE, add_agent, run
from tests.support.deps import World


class _CancelAfterTheTurn:
    """A chat store that, right after it stores a turn, lets ``then`` happen (a cancel, another writer)."""

    def __init__(self, inner: Any, then: Any) -> None:
        self.inner, self.then = inner, then

    def create_chat(self, chat: Any) -> None:
        self.inner.create_chat(chat)
        self.then()

    def append_messages(self, *args: Any, **kwargs: Any) -> None:
        self.inner.append_messages(*args, **kwargs)
        self.then()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _delegating(world: World, **fields: Any) -> str:
    """A master run waiting for its child, the child done: the master's next step is its last."""
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    started = run(world, "/delegate b :: work", **fields)
    assert service.step(world.deps, started.children[0]["run_id"]).outcome == "done"
    return started.run.run_id


def _texts(world: World, chat_id: str) -> list[str]:
    chat = world.deps.chats.get_chat("alice", chat_id)
    return [m.text for m in chat.messages if isinstance(m, TextMessage)] if chat else []


def test_a_run_cancelled_after_its_turn_was_stored_leaves_no_new_chat(world: World) -> None:
    # Given a delegating run whose last step stores its turn in a new chat, and a cancel right after that write
    run_id = _delegating(world)
    inner = world.deps.chats
    world.deps.chats = _CancelAfterTheTurn(inner, lambda: cancel.cancel_run(world.deps, ALICE, run_id))
    # When the step ends
    result = service.step(world.deps, run_id)
    # Then the run is cancelled, and the chat it created is gone with its turn
    assert result.run.status is RunStatus.CANCELLED
    assert inner.list_chats("alice") == []


def test_a_run_cancelled_after_its_turn_was_appended_leaves_the_chat_as_it_was(world: World) -> None:
    # Given a chat holding one finished turn, and a delegating run in it cancelled right after its turn is appended
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    first = run(world, "hello")
    chat_id = first.run.chat_id or ""
    before = _texts(world, chat_id)
    run_id = _delegating(world, chat_id=chat_id)
    inner = world.deps.chats
    world.deps.chats = _CancelAfterTheTurn(inner, lambda: cancel.cancel_run(world.deps, ALICE, run_id))
    # When the step ends
    result = service.step(world.deps, run_id)
    # Then the chat holds the first turn only, and a next append finds its place
    assert result.run.status is RunStatus.CANCELLED
    world.deps.chats = inner
    assert _texts(world, chat_id) == before and len(before) == 2
    assert run(world, "again", chat_id=chat_id).run.status is RunStatus.SUCCEEDED
    assert len(_texts(world, chat_id)) == 4


def test_without_a_cancel_the_turn_stays(world: World) -> None:
    # Given the same delegating run, with nothing happening after its chat write
    run_id = _delegating(world)
    world.deps.chats = _CancelAfterTheTurn(world.deps.chats, lambda: None)
    # When its last step ends
    result = service.step(world.deps, run_id)
    # Then it succeeded and its chat holds its turn
    assert result.run.status is RunStatus.SUCCEEDED
    assert _texts(world, result.run.chat_id or "")[0] == "/delegate b :: work"


def test_a_chat_that_moved_on_keeps_the_cancelled_runs_turn(world: World) -> None:
    # Given a cancel that lands after another writer appended behind the run's turn
    run_id = _delegating(world)
    inner = world.deps.chats

    def another_writer_then_cancel() -> None:
        chat = inner.list_chats("alice")[0]
        full = inner.get_chat("alice", chat.chat_id)
        assert full is not None
        inner.append_messages(
            "alice", chat.chat_id, [TextMessage(role="user", text="meanwhile")], expected_count=full.message_count
        )
        cancel.cancel_run(world.deps, ALICE, run_id)

    world.deps.chats = _CancelAfterTheTurn(inner, another_writer_then_cancel)
    # When the step ends
    result = service.step(world.deps, run_id)
    # Then the run is cancelled, and nothing of the chat is removed: the other writer's message stays
    assert result.run.status is RunStatus.CANCELLED
    texts = _texts(world, inner.list_chats("alice")[0].chat_id)
    assert texts[0] == "/delegate b :: work" and texts[-1] == "meanwhile"


def test_a_fast_path_run_that_crashes_after_storing_its_turn_leaves_no_chat(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a crash after the turn is stored (the auto-write plan raises what nothing translates)
    add_agent(world)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("a bug after the chat write")

    monkeypatch.setattr("mneme.engine.runs.outcome.plan_auto_write", broken)
    # When the run is answered
    with pytest.raises(RunFailedUnexpectedly) as failed:
        run(world, "hello")
    # Then the run is failed and no chat holds its turn
    stored = world.deps.runs.get_run(failed.value.run_id)
    assert stored is not None and stored.status is RunStatus.FAILED
    assert world.deps.chats.list_chats("alice") == []


class _CommitFailsOnce:
    """A run store whose first commit fails as DynamoDB's could (after the chat write): the step is retried."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.failed = inner, False

    def commit(self, *args: Any, **kwargs: Any) -> Any:
        if not self.failed:
            self.failed = True
            raise StoreUnavailable("the commit timed out")
        return self.inner.commit(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _CancelAfterTheLookup:
    """A chat store that lets ``then`` happen right after a retried step found its earlier attempt's turn."""

    def __init__(self, inner: Any, then: Any) -> None:
        self.inner, self.then = inner, then

    def get_chat_tail(self, *args: Any, **kwargs: Any) -> Any:
        chat = self.inner.get_chat_tail(*args, **kwargs)
        self.then()
        return chat

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _first_attempt_stores_then_fails(world: World, run_id: str) -> Any:
    runs, chats = world.deps.runs, world.deps.chats
    world.deps.runs = _CommitFailsOnce(runs)
    with pytest.raises(StoreUnavailable):
        service.step(world.deps, run_id)
    world.deps.runs = runs
    assert "/delegate b :: work" in _texts(world, chats.list_chats("alice")[0].chat_id)  # the turn is stored
    return chats


def test_a_retried_step_cancelled_after_finding_its_earlier_turn_takes_it_back(world: World) -> None:
    # Given a step whose first attempt stored the turn in a new chat and then failed to commit
    run_id = _delegating(world)
    inner = _first_attempt_stores_then_fails(world, run_id)
    # When its retry finds that turn stored, and a cancel lands right then
    world.deps.chats = _CancelAfterTheLookup(inner, lambda: cancel.cancel_run(world.deps, ALICE, run_id))
    result = service.step(world.deps, run_id)
    # Then the run is cancelled and the chat its first attempt created is gone with the turn
    assert result.run.status is RunStatus.CANCELLED
    assert inner.list_chats("alice") == []


def test_a_retried_step_that_finds_its_earlier_turn_keeps_it_when_it_succeeds(world: World) -> None:
    # Given the same first attempt
    run_id = _delegating(world)
    inner = _first_attempt_stores_then_fails(world, run_id)
    # When the retry ends with nothing happening
    result = service.step(world.deps, run_id)
    # Then the run succeeded and its chat holds its turn once
    assert result.run.status is RunStatus.SUCCEEDED
    texts = _texts(world, inner.list_chats("alice")[0].chat_id)
    assert texts.count("/delegate b :: work") == 1 and len(texts) == 2


def test_a_retried_step_cancelled_in_an_existing_chat_leaves_it_as_it_was(world: World) -> None:
    # Given a chat with one finished turn, and a step in it whose first attempt appended its turn, then failed
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    chat_id = run(world, "hello").run.chat_id or ""
    before = _texts(world, chat_id)
    run_id = _delegating(world, chat_id=chat_id)
    inner = _first_attempt_stores_then_fails(world, run_id)
    # When its retry finds that turn stored, and a cancel lands right then
    world.deps.chats = _CancelAfterTheLookup(inner, lambda: cancel.cancel_run(world.deps, ALICE, run_id))
    result = service.step(world.deps, run_id)
    # Then the run is cancelled and the chat holds the first turn only
    assert result.run.status is RunStatus.CANCELLED
    world.deps.chats = inner
    assert _texts(world, chat_id) == before and len(before) == 2
