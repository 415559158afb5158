"""A note that says nothing of a question, over HTTP (issue 30): ``POST /v1/memory/search`` leaves it out under
the default floors and explain says why (``says_nothing``), while a transcript line that says as little keeps its
share when its conversation holds a line beside it (its window may hold the answer). A transcript line stored alone
among notes has no window to vouch for it: it says nothing, as a note would."""

from __future__ import annotations

from typing import Any

from mneme.memory.embedding_limits import LOCAL_MINILM
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember_at
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "Where is the team offsite?"
OFFSITE = "The team offsite is planned for March in Lisbon."
FLOOR = LOCAL_MINILM.floors["hybrid"][0]  # the fake embedder has no calibrated floor: the local model's, asked for


def _search(api: Api, world: World, volvo: str, *, then: str = "") -> tuple[list[str], dict[str, Any], str]:
    """The hits' ids, the explanation and the Volvo memory's id, stored beside the offsite's note (and ``then``
    right after it, when given)."""
    remember_at(world, ALICE, OFFSITE, query=QUERY, similarity=0.9)
    volvo_id = remember_at(world, ALICE, volvo, query=QUERY, similarity=0.0)
    if then:
        remember_at(world, ALICE, then, query=QUERY, similarity=0.0)
    body = {"query": QUERY, "namespaces": [ALICE], "top_k": 5, "min_score": FLOOR, "explain": True}
    reply = api.post("/v1/memory/search", body)
    assert reply.status == 200, reply.text
    return [str(hit["id"]) for hit in reply.body["hits"]], reply.body["explanation"], volvo_id


def test_a_note_that_says_nothing_of_the_question_is_not_a_hit(api: Api, world: World) -> None:
    hits, _explained, volvo = _search(api, world, "Tom drives an old Volvo.")
    assert len(hits) == 1
    assert volvo not in hits


def test_explain_says_the_note_says_nothing_of_the_question(api: Api, world: World) -> None:
    _hits, explained, volvo = _search(api, world, "Tom drives an old Volvo.")
    [dropped] = [entry for entry in explained["dropped"] if entry["id"] == volvo]
    assert (dropped["reason"], dropped.get("says_nothing")) == ("below_floor", True)
    assert all("says_nothing" not in hit for hit in explained["hits"])


def test_a_transcript_line_that_says_as_little_is_still_a_hit_beside_its_next_line(api: Api, world: World) -> None:
    hits, explained, volvo = _search(api, world, "Tom: I drive an old Volvo.", then="Maria: Which year is it from?")
    assert volvo in hits
    assert all("says_nothing" not in entry for entry in explained["hits"] + explained["dropped"])


def test_a_transcript_line_stored_alone_among_notes_says_nothing(api: Api, world: World) -> None:
    hits, explained, volvo = _search(api, world, "Tom: I drive an old Volvo.")
    assert volvo not in hits
    [dropped] = [entry for entry in explained["dropped"] if entry["id"] == volvo]
    assert (dropped["reason"], dropped.get("says_nothing")) == ("below_floor", True)
