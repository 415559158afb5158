"""An error's message is bounded: it quotes the value it refuses, and a hostile value quoted whole made a response
over Lambda's 6 MB (a bare 500 from API Gateway). The HTTP side is pinned in tests/functional/api/test_hostile_input."""

from __future__ import annotations

from mneme.errors import MAX_MESSAGE_CHARS, InvalidInput, NotFound


def test_a_message_up_to_the_bound_is_kept_whole() -> None:
    message = "x" * MAX_MESSAGE_CHARS
    error = NotFound(message)
    assert (error.message, str(error), error.to_body()["message"]) == (message, message, message)


def test_a_longer_message_keeps_its_start_and_says_how_much_was_cut() -> None:
    error = InvalidInput(f"no agent {'a' * 5_000!r}", field="agent_id")
    assert error.message.startswith("no agent 'aaaa")
    assert error.message.endswith("… (4,011 more characters)")
    assert len(error.message) < MAX_MESSAGE_CHARS + 40
    assert str(error) == error.message and error.to_body()["field"] == "agent_id"
