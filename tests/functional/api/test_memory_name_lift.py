"""What a speaker's name alone explains, where it is wired (issue 30): over HTTP, a question about a speaker of
the caller's memories on a subject never discussed returns nothing above the floor, although a turn of that
speaker is close to it by vector (through the name); a question about what that speaker did say still recalls."""

from __future__ import annotations

import pytest

from mneme.memory import name_lift
from tests.functional.api.conftest import Api
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import remember, remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
FLOOR = 0.35  # the hybrid floor auto-inject applies with MiniLM and Titan (the fake embedder has none)
OFF_TOPIC = "Which submarine did Caroline serve on?"
ON_TOPIC = "Where did Caroline take a pottery class?"


def _conversation(world: World) -> tuple[str, str]:
    """A turn close to the name alone (as a small model scores "Take care, Caroline!"), and one with content."""
    name_only = remember_at(world, ALICE, "Caroline: Take care, Melanie!", query="Caroline", similarity=0.95)
    pottery = remember(world, ALICE, "Caroline: I took a pottery class downtown.")
    return name_only, pottery


def _hits(api: Api, query: str) -> list[str]:
    body = {"query": query, "namespaces": [ALICE], "top_k": 5, "min_score": FLOOR}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    return [hit["id"] for hit in reply.body["hits"]]


def test_an_off_topic_question_naming_a_speaker_returns_nothing_above_the_floor(api: Api, world: World) -> None:
    _conversation(world)
    assert _hits(api, OFF_TOPIC) == []


def test_without_the_name_lift_the_speakers_turn_would_pass_the_floor(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    name_only, _ = _conversation(world)
    monkeypatch.setattr(name_lift, "vector_share", lambda *_args: 1.0)
    assert name_only in _hits(api, OFF_TOPIC)


def test_a_question_about_what_the_speaker_said_still_recalls_it(api: Api, world: World) -> None:
    _, pottery = _conversation(world)
    assert _hits(api, ON_TOPIC)[0] == pottery


def test_the_question_without_the_name_is_embedded_once_more(api: Api, world: World) -> None:
    _conversation(world)
    world.embedder.calls.clear()
    _hits(api, OFF_TOPIC)
    assert world.embedder.calls == [[OFF_TOPIC], ["Which submarine did serve on?"]]


def test_a_question_naming_no_speaker_costs_no_second_embedding(api: Api, world: World) -> None:
    _conversation(world)
    world.embedder.calls.clear()
    _hits(api, "Which submarine did Melanie's cousin serve on?")  # Melanie is addressed, never a speaker
    assert world.embedder.calls == [["Which submarine did Melanie's cousin serve on?"]]


def test_another_users_speakers_are_not_names_to_alice(api: Api, world: World) -> None:
    # Given bob's memory has a speaker Melanie, alice's only mentions her
    remember(world, "vector.user.bob.memory", "Melanie: I served on a submarine.", owner="bob")
    close = remember_at(world, ALICE, "Caroline: Take care, Melanie!", query="Melanie", similarity=0.95)
    world.embedder.calls.clear()
    assert close in _hits(api, "Which submarine did Melanie serve on?")
    assert len(world.embedder.calls) == 1


LIVE = "Where does Maria live?"  # answered in other words than asked: its name-free half finds nothing
SUBMARINE = "Which submarine did Maria serve on?"  # never discussed


def _maria(world: World, porto: float, others: float) -> str:
    """Four turns of Maria's close to her name alone at these cosines (as a small model scores them: the Porto
    turn's cosine to "Where does Maria live?" is 0.65, the others' 0.41-0.54, and nothing of them is close to the
    question without the name); the Porto turn's id."""
    for text in ("Maria: I work as a nurse.", "Maria: My cat is called Luna.", "Maria: Lisbon next month!"):
        remember_at(world, ALICE, text, query="Maria", similarity=others)
    return remember_at(world, ALICE, "Maria: I moved to Porto.", query="Maria", similarity=porto)


def test_a_speakers_turn_standing_out_from_their_others_is_recalled_though_asked_in_other_words(
    api: Api, world: World
) -> None:
    porto = _maria(world, porto=0.95, others=0.3)
    assert porto in _hits(api, LIVE)  # ranked among Maria's turns by the name-free leg


def test_without_the_standout_the_name_lift_left_it_under_the_floor(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    _maria(world, porto=0.95, others=0.3)
    monkeypatch.setattr(name_lift, "standout", lambda *_args: 0.0)
    assert _hits(api, LIVE) == []


def test_a_speakers_turns_all_alike_through_the_name_still_return_nothing(api: Api, world: World) -> None:
    _maria(world, porto=0.9, others=0.9)
    assert _hits(api, SUBMARINE) == []


REHEARSING = "Which piece is Caroline rehearsing?"
WITHOUT_THE_NAME = "Which piece is rehearsing?"


def _vector_similarity(api: Api, query: str, memory_id: str) -> float:
    body = {"query": query, "namespaces": [ALICE], "top_k": 5, "min_score": 0}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    (hit,) = [hit for hit in reply.body["hits"] if hit["id"] == memory_id]
    similarity: float = hit["vector_similarity"]
    return similarity


def test_a_question_naming_a_speaker_is_ranked_by_its_vector_without_the_name(api: Api, world: World) -> None:
    bach = remember_at(world, ALICE, "Caroline: A Bach suite, for the recital.", query=WITHOUT_THE_NAME, similarity=0.9)
    assert _vector_similarity(api, REHEARSING, bach) == pytest.approx(0.9, abs=1e-4)


def test_without_the_name_lift_the_vector_leg_is_the_whole_questions(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    bach = remember_at(world, ALICE, "Caroline: A Bach suite, for the recital.", query=WITHOUT_THE_NAME, similarity=0.9)
    monkeypatch.setattr(name_lift, "named", lambda *_args: None)
    assert _vector_similarity(api, REHEARSING, bach) != pytest.approx(0.9, abs=1e-2)


EMPLOYED = "Where is Caroline employed now?"


def _keyword_score(api: Api, query: str, memory_id: str) -> float | None:
    body = {"query": query, "namespaces": [ALICE], "top_k": 10, "min_score": 0}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    found = [hit["keyword_score"] for hit in reply.body["hits"] if hit["id"] == memory_id]
    return found[0] if found else None


def _addressed(world: World) -> str:
    """A turn that addresses the speaker the question asks about, beside one she said."""
    remember(world, ALICE, "Caroline: I switched jobs, I'm at the library now.")
    return remember(world, ALICE, "Melanie: Thanks, Caroline, that means a lot.")


def test_a_turn_addressing_the_named_speaker_is_no_keyword_match(api: Api, world: World) -> None:
    thanks = _addressed(world)
    assert not _keyword_score(api, EMPLOYED, thanks)


def test_without_the_name_lift_the_address_is_a_keyword_match(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    thanks = _addressed(world)
    monkeypatch.setattr(name_lift, "named", lambda *_args: None)
    assert (_keyword_score(api, EMPLOYED, thanks) or 0.0) > 0.0


STRANGER = "What did Penelope cook for dinner?"  # no memory of alice's mentions a Penelope


def _cooking(world: World) -> str:
    """A turn close to the stranger question by vector (its subject, cooking), about someone else."""
    return remember_at(world, ALICE, "Melanie: What do you cook these days?", query=STRANGER, similarity=0.9)


def test_a_question_about_someone_no_memory_mentions_returns_nothing_above_the_floor(api: Api, world: World) -> None:
    _cooking(world)
    assert _hits(api, STRANGER) == []


def test_without_the_unknown_name_rule_the_turn_about_someone_else_would_pass_the_floor(
    api: Api, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    cooking = _cooking(world)
    monkeypatch.setattr(name_lift, "unknown", lambda *_args: ())
    assert cooking in _hits(api, STRANGER)


def test_once_a_memory_mentions_the_person_the_vector_counts_again(api: Api, world: World) -> None:
    cooking = _cooking(world)
    remember(world, ALICE, "Caroline: Penelope is my new neighbour.")
    assert cooking in _hits(api, STRANGER)


def test_another_users_memory_of_the_person_does_not_make_her_known_to_alice(api: Api, world: World) -> None:
    remember(world, "vector.user.bob.memory", "Bob: Penelope cooked lentil curry for dinner.", owner="bob")
    _cooking(world)
    assert _hits(api, STRANGER) == []


def _explained(api: Api, query: str) -> dict[str, object]:
    body = {"query": query, "namespaces": [ALICE], "top_k": 5, "min_score": FLOOR, "explain": True}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    thresholds: dict[str, object] = reply.body["explanation"]["thresholds"]
    return thresholds


def test_explain_shows_the_speakers_named_and_the_vector_share_the_question_kept(api: Api, world: World) -> None:
    _conversation(world)
    lift = _explained(api, OFF_TOPIC)["name_lift"]
    assert isinstance(lift, dict) and lift["names"] == ["Caroline"]
    assert 0.0 <= lift["vector_share"] < 1.0  # the name explained the cosine: the share it keeps is cut


def test_explain_shows_no_name_lift_for_a_question_naming_no_speaker(api: Api, world: World) -> None:
    _conversation(world)
    assert "name_lift" not in _explained(api, "Which submarine did Melanie's cousin serve on?")


def test_explain_names_the_person_no_memory_mentions(api: Api, world: World) -> None:
    _cooking(world)
    lift = _explained(api, STRANGER)["name_lift"]
    assert lift == {"names": [], "unknown": ["Penelope"], "vector_share": 0.0}


def test_a_runs_memory_hits_event_names_the_person_no_memory_mentions(world: World) -> None:
    add_agent(world, memory_policy={"min_score": FLOOR})
    _cooking(world)
    result = run(world, STRANGER)
    (event,) = [e.data for e in world.deps.runs.list_events(result.run.run_id) if e.type == "memory_hits"]
    assert event["hits"] == [] and event["name_lift"]["unknown"] == ["Penelope"]


def test_a_runs_memory_hits_event_shows_the_name_lift(world: World) -> None:
    # Given an agent that auto-reads alice's memory, and a question about a speaker on a subject never discussed
    add_agent(world, memory_policy={"min_score": FLOOR})
    _conversation(world)
    result = run(world, OFF_TOPIC)
    (event,) = [e.data for e in world.deps.runs.list_events(result.run.run_id) if e.type == "memory_hits"]
    # Then nothing was injected, and the event says the name was discounted
    assert event["hits"] == []
    assert event["name_lift"]["names"] == ["Caroline"] and event["name_lift"]["vector_share"] < 1.0


def test_a_runs_memory_hits_event_has_no_name_lift_when_no_speaker_is_named(world: World) -> None:
    add_agent(world, memory_policy={"min_score": FLOOR})
    _conversation(world)
    result = run(world, "Which submarine did Melanie's cousin serve on?")
    (event,) = [e.data for e in world.deps.runs.list_events(result.run.run_id) if e.type == "memory_hits"]
    assert "name_lift" not in event
