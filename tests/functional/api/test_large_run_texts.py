"""A run whose input and answer are within SPEC §12 but too large for one DynamoDB item together (100,000
characters of CJK text are 300 KB of UTF-8): its input and output are stored beside the run item
(:mod:`mneme.adapters.dynamo.run_texts`), so the run succeeds and reads back whole, instead of a 413 after the
model had answered and a chat turn naming a run that does not exist."""

from __future__ import annotations

from mneme.adapters.dynamo.run_texts import TEXTS_PREFIX
from tests.fakes.model import ScriptedModel
from tests.functional.api.conftest import Api, add_agent, main_items
from tests.support.deps import World, make_world

INPUT = "中" * 70_000  # 210 KB
ANSWER = "答" * 70_000  # 210 KB: together over the 400 KB of one item


def _world(*answers: str) -> tuple[Api, World]:
    world = make_world(ScriptedModel(list(answers)))
    add_agent(world)
    return Api(world), world


def _run(api: Api, text: str = INPUT, **fields: object) -> dict[str, object]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": text, **fields})
    assert reply.status == 200, reply.text[:300]
    return dict(reply.body)


def _texts(world: World) -> list[str]:
    return sorted(str(sk) for _pk, sk in main_items(world) if str(sk).startswith(TEXTS_PREFIX))


def test_a_run_too_large_for_one_item_succeeds_and_reads_back_whole() -> None:
    api, world = _world(ANSWER)
    body = _run(api)
    assert (body["status"], body["output"]) == ("succeeded", ANSWER)
    assert api.get(f"/v1/runs/{body['run_id']}").body["output"] == ANSWER
    stored = world.deps.runs.get_run(str(body["run_id"]))
    assert stored is not None and (stored.input, stored.output) == (INPUT, ANSWER)


def test_its_chat_holds_the_turn_of_a_run_that_exists() -> None:
    api, _ = _world(ANSWER)
    body = _run(api)
    messages = api.get(f"/v1/chats/{body['chat_id']}").body["messages"]
    assert [(m["text"], m["run_id"]) for m in messages] == [(INPUT, body["run_id"]), (ANSWER, body["run_id"])]
    assert api.get("/v1/runs").body["runs"][0]["run_id"] == body["run_id"]


def test_a_run_that_fits_its_item_writes_nothing_beside_it() -> None:
    api, world = _world("a short answer")
    _run(api)
    assert _texts(world) == []


def test_only_the_last_versions_texts_are_kept() -> None:
    api, world = _world(ANSWER, ANSWER)
    first = _run(api)
    second = _run(api, chat_id=first["chat_id"])
    heads = [(pk, sk) for pk, sk in main_items(world) if str(sk).startswith(TEXTS_PREFIX) and str(sk).count("#") == 2]
    assert sorted(pk for pk, _sk in heads) == sorted(f"RUN#{b['run_id']}" for b in (first, second))
