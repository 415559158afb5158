"""A chat turn whose message is larger than one DynamoDB item (400 KB) — an input within SPEC §12's 100,000
characters that JSON escapes to 600 KB, or a long CJK answer — is stored (in parts, beside its item): the run
succeeds, the chat reads back whole, and the next run of the chat sees it. Before, the chat append was refused
after the model had answered and the run ended ``failed``, its answer lost."""

from __future__ import annotations

from tests.fakes.model import ScriptedModel
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import make_world

CONTROL = "\x01" * 100_000  # within the input limit; 6 bytes a character as JSON
ANSWER = "答" * 150_000  # 450 KB of UTF-8


def _api(model: ScriptedModel) -> Api:
    world = make_world(model)
    add_agent(world)
    return Api(world)


def test_an_input_that_escapes_past_an_item_is_stored_and_the_chat_goes_on() -> None:
    model = ScriptedModel(["first answer", "second answer"])
    api = _api(model)
    first = api.post("/v1/runs", {"agent_id": "master", "input": CONTROL, "chat_id": "c1"})
    assert (first.status, first.body["status"]) == (200, "succeeded"), first.text[:300]
    chat = api.get("/v1/chats/c1").body
    assert [m["text"] for m in chat["messages"]] == [CONTROL, "first answer"]
    # the next run of the chat reads the long message back into its history
    second = api.post("/v1/runs", {"agent_id": "master", "input": "and now?", "chat_id": "c1"})
    assert second.body["status"] == "succeeded", second.text[:300]
    history = [b.get("text") for m in model.last_request["messages"] for b in m["content"]]
    assert CONTROL in history


def test_a_long_answer_is_kept_in_the_chat() -> None:
    api = _api(ScriptedModel([ANSWER]))
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "write a lot", "chat_id": "c1"})
    assert (reply.status, reply.body["status"], reply.body["output"]) == (200, "succeeded", ANSWER)
    assert [m["text"] for m in api.get("/v1/chats/c1").body["messages"]] == ["write a lot", ANSWER]


def test_an_input_over_the_limit_is_still_refused_with_413() -> None:
    api = _api(ScriptedModel([]))
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "a" * 100_001, "chat_id": "c1"})
    assert reply.status == 413
