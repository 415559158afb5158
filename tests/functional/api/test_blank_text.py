"""Text read for its meaning — a run's input, a search or explain query, a memory's content — may not be whitespace
alone: a 400 naming the field, nothing stored and nothing run (it failed the run, or the whole batch, at the
embedding, with a field named ``text`` the request did not have)."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT
from tests.support.deps import World

NS = "vector.user.alice.notes"
BLANKS = ["   ", "\u00a0", "\u3000", "\u2028", "\t\n"]


@pytest.mark.parametrize("blank", BLANKS)
def test_a_run_whose_input_is_whitespace_is_a_400_and_leaves_no_chat(api: Api, blank: str) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.post("/v1/runs", {"agent_id": "researcher", "input": blank, "chat_id": "blank-chat"})
    assert (reply.status, reply.body["field"]) == (400, "input")
    assert api.get("/v1/chats/blank-chat").status == 404
    assert api.get("/v1/runs").body["runs"] == []


def test_a_run_whose_input_has_a_word_inside_whitespace_runs(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.post("/v1/runs", {"agent_id": "researcher", "input": "\u3000 hi \n"})
    assert reply.status == 200 and reply.body["status"] == "succeeded"


def test_a_preview_of_a_blank_input_is_a_400(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.post("/v1/context/preview", {"agent_id": "researcher", "input": " "})
    assert (reply.status, reply.body["field"]) == (400, "input")


@pytest.mark.parametrize("route", ["/v1/memory/search", "/v1/memory/explain"])
def test_a_blank_query_is_a_400_naming_it(api: Api, route: str) -> None:
    reply = api.post(route, {"query": "\u00a0 ", "memory_id": "x"})
    assert (reply.status, reply.body["field"]) == (400, "query")


def test_a_query_with_a_word_is_searched(api: Api) -> None:
    assert api.post("/v1/memory/search", {"query": " tea "}).status == 200


def test_a_document_of_blank_content_is_a_400_and_stores_nothing(api: Api, world: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": NS, "content": "\u3000"})
    assert (reply.status, reply.body["field"]) == (400, "content")
    assert world.memory.documents == {}


def test_a_blank_item_of_a_batch_is_reported_by_index_and_the_others_are_stored(api: Api, world: World) -> None:
    items = [{"namespace": NS, "content": "good item one"}, {"namespace": NS, "content": "  "}]
    items.append({"namespace": NS, "content": "good item three"})
    reply = api.post("/v1/memory/documents:batch", {"items": items})
    assert reply.status == 207, reply.text
    assert [r["status"] for r in reply.body["results"]] == [201, 400, 201]
    assert reply.body["results"][1]["error"]["field"] == "content"
    assert sorted(d.content for d in world.memory.documents.values()) == ["good item one", "good item three"]


def test_a_patch_to_blank_content_is_a_400_and_keeps_the_entry(api: Api) -> None:
    doc_id = api.post("/v1/memory/documents", {"namespace": NS, "content": "Tea at four."}).body["ids"][0]
    reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"content": "   "})
    assert (reply.status, reply.body["field"]) == (400, "content")
    assert api.get(f"/v1/memory/documents/{doc_id}").body["content"] == "Tea at four."


def test_the_400_says_what_is_wrong_in_the_validators_words(api: Api) -> None:
    reply = api.post("/v1/memory/search", {"query": "   "})
    assert reply.body["message"] == "query: must contain a character other than whitespace"


def test_a_batch_items_refusal_is_in_the_validators_words(api: Api) -> None:
    reply = api.post("/v1/memory/documents:batch", {"items": [{"namespace": NS, "content": " "}]})
    assert reply.body["results"][0]["error"]["message"] == "content: must contain a character other than whitespace"


@pytest.mark.parametrize("field", ["description", "content"])
@pytest.mark.parametrize("blank", ["", "   ", "\u3000\n"])
def test_a_skill_of_blank_description_or_content_is_a_400_and_stores_nothing(api: Api, field: str, blank: str) -> None:
    reply = api.put("/v1/skills/tone", {"description": "Sets the tone.", "content": "Be warm.", field: blank})
    assert (reply.status, reply.body["field"]) == (400, field)
    assert api.get("/v1/skills/tone").status == 404


def test_a_skill_with_a_word_inside_whitespace_is_saved(api: Api) -> None:
    reply = api.put("/v1/skills/tone", {"description": " Sets the tone. ", "content": "\n Be warm.\n"})
    assert reply.status == 200 and reply.body["content"] == "\n Be warm.\n"
