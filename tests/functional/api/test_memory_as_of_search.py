"""The as-of search replays the live search (issue 35.3): the same retrieval (hybrid by default: the vector leg,
the keyword leg, the conversation windows, the fusion) and ranking over the memory as it was, its options
honoured, each distinct content embedded once, and ``explain`` over the as-of state."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
NOTES = "vector.user.alice.notes"
QUERY = "what was ticket ZK-4471 about"
CODED = "maria filed ticket ZK-4471 for the broken badge reader"
UNCODED = "maria filed a ticket for the broken badge reader"
CLOSE = "what was the ticket about the jammed printer tray, it was about paper"  # the closest vector, no code
OTHERS = (
    "alice walks her dog every morning before work",
    "the team lunch was about planning the next quarter",
    "bob asked what the wifi password was",
)


def _write(api: Api, content: str, namespace: str = ALICE) -> str:
    reply = api.post("/v1/memory/documents", {"namespace": namespace, "content": content})
    assert reply.status == 201, reply.text
    return str(reply.body["ids"][0])


def _coded_then_edited(api: Api, world: World) -> tuple[str, Any]:
    """The coded entry among others; the moment after; then an edit drops the code word from it."""
    coded = _write(api, CODED)
    for content in (CLOSE, *OTHERS):
        _write(api, content)
    world.clock.advance(minutes=10)
    moment = world.clock.now()
    world.clock.advance(minutes=10)
    assert api.call("PATCH", f"/v1/memory/documents/{coded}", {"content": UNCODED}).status == 200
    return coded, moment


def _search(api: Api, moment: Any = None, **options: Any) -> list[dict[str, Any]]:
    body = {"query": QUERY, "min_score": 0, **options}
    if moment is not None:
        body["as_of"] = moment.isoformat()
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    return list(reply.body["hits"])


def test_as_of_the_hybrid_replay_ranks_first_the_entry_that_then_held_the_code_word(api: Api, world: World) -> None:
    coded, moment = _coded_then_edited(api, world)
    hits = _search(api, moment)
    assert hits[0]["id"] == coded and hits[0]["content"] == CODED
    assert hits[0]["keyword_score"] is not None and hits[0]["keyword_score"] > 0


def test_now_that_the_code_word_is_gone_the_same_query_no_longer_ranks_it_first(api: Api, world: World) -> None:
    coded, _ = _coded_then_edited(api, world)
    hits = _search(api)
    assert hits[0]["id"] != coded and hits[0]["content"] == CLOSE


def test_as_of_a_vector_replay_asked_ranks_the_closest_vector_first_not_the_code_word(api: Api, world: World) -> None:
    coded, moment = _coded_then_edited(api, world)
    hits = _search(api, moment, retrieval="vector")
    assert hits[0]["content"] == CLOSE
    assert [hit["content"] for hit in hits if hit["id"] == coded] == [CODED]  # the entry as it was, ranked lower
    assert all(hit["keyword_score"] is None for hit in hits)


@pytest.mark.parametrize(
    "options",
    [{}, {"fusion": "rrf"}, {"retrieval": "vector"}, {"retrieval": "keyword"}, {"min_score": 0.9}],
    ids=["hybrid", "rrf", "vector", "keyword", "floor"],
)
def test_as_of_now_with_nothing_changed_answers_exactly_the_live_search(
    api: Api, world: World, options: dict[str, Any]
) -> None:
    for content in (CODED, CLOSE, *OTHERS):
        _write(api, content)
    world.clock.advance(minutes=10)
    body = {"query": QUERY, "top_k": 4, **options}
    live = api.post("/v1/memory/search", body)
    then = api.post("/v1/memory/search", {**body, "as_of": world.clock.now().isoformat()})
    assert live.status == then.status == 200
    assert then.body["hits"] == live.body["hits"]  # same ids, order, similarity, relevance and score parts
    assert live.body["hits"]  # not two empty answers


def test_as_of_honours_the_floor_asked(api: Api, world: World) -> None:
    _, moment = _coded_then_edited(api, world)
    hits = _search(api, moment)
    assert len(hits) == 5
    assert hits[1]["relevance"] < hits[0]["relevance"]  # a floor at the best's relevance keeps the best alone
    assert [hit["content"] for hit in _search(api, moment, min_score=hits[0]["relevance"])] == [CODED]


def test_as_of_embeds_each_distinct_content_once_in_one_batched_call(api: Api, world: World) -> None:
    _write(api, CODED)
    _write(api, CODED, NOTES)  # the same content in another namespace: a second entry, one content
    _write(api, CLOSE)
    world.clock.advance(minutes=10)
    world.embedder.calls.clear()
    _search(api, world.clock.now())
    assert world.embedder.calls == [[CODED, CLOSE], [QUERY]]


def test_as_of_embeds_no_content_that_could_not_be_a_candidate_then(api: Api, world: World) -> None:
    gone = _write(api, CLOSE)
    assert api.delete(f"/v1/memory/documents/{gone}").status == 204
    _write(api, CODED, NOTES)
    _write(api, OTHERS[0])
    world.clock.advance(minutes=10)
    world.embedder.calls.clear()
    _search(api, world.clock.now(), namespaces=[ALICE])
    assert world.embedder.calls == [[OTHERS[0]], [QUERY]]  # not the deleted entry's, not the unsearched notes'


def test_a_keyword_replay_embeds_nothing_but_still_finds_the_entry(api: Api, world: World) -> None:
    coded, moment = _coded_then_edited(api, world)
    world.embedder.calls.clear()
    assert _search(api, moment, retrieval="keyword")[0]["id"] == coded
    assert world.embedder.calls == []


def test_as_of_reads_are_audited_with_the_moment_and_live_reads_without(api: Api, world: World) -> None:
    _, moment = _coded_then_edited(api, world)

    def searched() -> list[dict[str, Any]]:
        return [r.detail for r in world.deps.audit.query("alice", action="read").records if "top_k" in r.detail]

    _search(api)
    live = searched()
    _search(api, moment)
    then = [detail for detail in searched() if detail not in live]
    assert live and all("as_of" not in detail for detail in live)
    assert len(then) == len(live) and all(detail["as_of"] == moment.isoformat() for detail in then)


# ------------------------------------------------------------------------------------------- explain
def _explained(api: Api, moment: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"query": QUERY, "explain": True, "min_score": 0}
    if moment is not None:
        body["as_of"] = moment.isoformat()
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    return dict(reply.body["explanation"])


def _reasons(explanation: dict[str, Any]) -> dict[str, str]:
    return {hit["id"]: "hit" for hit in explanation["hits"]} | {d["id"]: d["reason"] for d in explanation["dropped"]}


def test_explain_as_of_names_an_entry_deleted_before_the_moment_deleted(api: Api, world: World) -> None:
    gone = _write(api, CODED)
    _write(api, CLOSE)
    assert api.delete(f"/v1/memory/documents/{gone}").status == 204
    world.clock.advance(minutes=10)
    assert _reasons(_explained(api, world.clock.now()))[gone] == "deleted"


def test_explain_as_of_recalls_an_entry_deleted_only_after_the_moment(api: Api, world: World) -> None:
    later = _write(api, CODED)
    _write(api, CLOSE)
    world.clock.advance(minutes=10)
    moment = world.clock.now()
    world.clock.advance(minutes=10)
    assert api.delete(f"/v1/memory/documents/{later}").status == 204
    explanation = _explained(api, moment)
    assert _reasons(explanation)[later] == "hit"
    assert explanation["hits"][0]["scores"]["keyword"] > 0
    assert _reasons(_explained(api))[later] == "deleted"


def test_explain_as_of_names_an_entry_superseded_then_superseded(api: Api, world: World) -> None:
    old = _write(api, CODED)
    _write(api, CLOSE)
    assert api.call("PATCH", f"/v1/memory/documents/{old}", {"status": "superseded"}).status == 200
    world.clock.advance(minutes=10)
    moment = world.clock.now()
    assert _reasons(_explained(api, moment))[old] == "superseded"


def test_explain_as_of_does_not_list_an_entry_created_after_the_moment(api: Api, world: World) -> None:
    _write(api, CLOSE)
    world.clock.advance(minutes=10)
    moment = world.clock.now()
    world.clock.advance(minutes=10)
    newer = _write(api, CODED)
    assert newer not in _reasons(_explained(api, moment))
    assert _reasons(_explained(api))[newer] == "hit"
