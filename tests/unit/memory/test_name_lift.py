"""What a speaker's name alone explains (issue 30): the names a question shares with its memories' speakers,
the question without them, and the share of its vector confidence it keeps."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mneme.memory import calibration
from mneme.memory.keyword_scoring import SPEAKER_WEIGHT, Bm25
from mneme.memory.name_lift import (
    COVERAGE_SCALE,
    NAME_FREE_RAMP,
    SPEAKER_BONUS,
    STANDOUT_NEAR,
    STANDOUT_SCALE,
    STANDOUT_TURNS,
    name_free_coverage,
    named,
    speaker_bonus,
    speakers,
    standout,
    unknown,
    vector_share,
)
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryDocument

NOW = datetime(2024, 6, 1, tzinfo=UTC)
MODEL = "all-MiniLM-L6-v2"
NOTHING = calibration.COSINE_SCALE[MODEL][0]  # the cosine under which the model's calibration says nothing is similar


def _doc(content: str, doc_id: str = "d1") -> MemoryDocument:
    return MemoryDocument(
        id=doc_id, namespace="vector.user.a.memory", owner_user_id="a", content=content, content_hash=doc_id,
        created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def test_speakers_are_read_from_the_leading_prefix() -> None:
    found = speakers([_doc("Caroline: Take care, Melanie!"), _doc("Dr. Ana Lima: Hi!")])
    assert found == {"Caroline", "Ana", "Lima"}  # "Dr." is a title word, Melanie only addressed


def test_a_memory_without_a_prefix_names_no_speaker() -> None:
    assert speakers([_doc("Met Caroline at the pottery class.")]) == set()


def test_a_question_naming_a_speaker_is_split_into_the_name_and_the_rest() -> None:
    found = named("Which submarine did Caroline serve on?", [_doc("Caroline: Hi!")])
    assert found is not None
    assert found.names == ("Caroline",)
    assert found.rest == "Which submarine did serve on?"


def test_the_possessive_goes_with_the_name() -> None:
    found = named("What is Caroline's favourite opera?", [_doc("Caroline: Hi!")])
    assert found is not None and found.rest == "What is favourite opera?"


def test_a_question_naming_no_speaker_is_left_alone() -> None:
    assert named("Which submarine did Penelope serve on?", [_doc("Caroline: Hi!")]) is None


def test_a_speaker_named_like_a_word_is_matched_only_capitalised() -> None:
    assert named("When prices rose, what did Kate buy?", [_doc("Rose: Hi!")]) is None
    assert named("What did Rose buy?", [_doc("Rose: Hi!")]) is not None


def test_a_speaker_named_like_a_function_word_is_no_name() -> None:
    assert speakers([_doc("Will: Hi!")]) == set()


def test_a_question_that_is_only_the_name_has_no_rest_to_search() -> None:
    assert named("Caroline?", [_doc("Caroline: Hi!")]) is None


def _bm25(query_words: list[str]) -> Bm25:
    return Bm25(query_words, KeywordMatches(documents=[], total_documents=10, total_chars=300, doc_freq={}))


def test_name_free_coverage_leaves_the_names_out() -> None:
    bm25 = _bm25(["caroline", "submarine"])
    assert name_free_coverage(bm25, [_doc("Caroline: Take care!")], ["Caroline"]) == 0.0
    assert name_free_coverage(bm25, [_doc("Melanie: A submarine!", "d2")], ["Caroline"]) == 1.0


def test_with_the_names_counted_the_same_memory_would_cover_part_of_the_question() -> None:
    bm25 = _bm25(["caroline", "submarine"])
    counts = bm25.counts_of(_doc("Caroline: Take care!"))
    assert bm25.coverage(counts) == pytest.approx(0.5)


def test_a_name_free_question_at_the_models_nothing_cosine_keeps_no_vector_confidence() -> None:
    assert vector_share(MODEL, NOTHING, 0.0) == 0.0


def test_a_name_free_question_clearly_above_it_keeps_all_of_it() -> None:
    assert vector_share(MODEL, NOTHING + NAME_FREE_RAMP, 0.0) == 1.0
    assert 0.0 < vector_share(MODEL, NOTHING + NAME_FREE_RAMP / 2, 0.0) < 1.0


def test_a_word_of_the_subject_found_keeps_the_vector_confidence_too() -> None:
    low, high = COVERAGE_SCALE
    assert vector_share(MODEL, 0.0, high) == 1.0
    assert vector_share(MODEL, 0.0, low) == 0.0


def test_the_ramp_follows_each_models_calibration() -> None:
    titan = "amazon.titan-embed-text-v2:0"
    cosine = calibration.COSINE_SCALE[titan][0] + NAME_FREE_RAMP
    assert vector_share(titan, cosine, 0.0) == 1.0
    assert vector_share(MODEL, cosine, 0.0) == 0.0  # MiniLM's cosines run higher: the same is nothing there


def _turns(*said: tuple[str, float]) -> list[MemoryCandidate]:
    return [
        MemoryCandidate(document=_doc(text, f"d{n}"), similarity=similarity)
        for n, (text, similarity) in enumerate(said)
    ]


MARIA = (("Maria: I moved to Porto.", 0.65), ("Maria: I work as a nurse.", 0.54), ("Maria: My cat is Luna.", 0.41))


def test_a_named_speakers_best_turn_stands_out_by_its_distance_to_the_median_of_the_others() -> None:
    others = ("Maria: Lisbon next month.", 0.51), ("Kim: Where do you live now?", 0.9)  # Kim's is not Maria's
    assert standout(_turns(*MARIA, *others), ["Maria"]) == pytest.approx(0.65 - 0.51)


def test_turns_all_alike_through_the_name_stand_out_by_little() -> None:
    alike = [(f"Melanie: turn {n}.", 0.5 + n / 100) for n in range(8)]
    assert standout(_turns(*alike), ["Melanie"]) == pytest.approx(0.57 - 0.53)  # the median of 0.50-0.56


def test_fewer_turns_of_the_named_speaker_than_needed_stand_out_by_nothing() -> None:
    assert len(MARIA[:2]) < STANDOUT_TURNS
    assert standout(_turns(*MARIA[:2]), ["Maria"]) == 0.0
    assert standout(_turns(*MARIA, ("Kim: Take care, Maria!", 0.6)), ["Kim"]) == 0.0


def test_a_turn_standing_out_keeps_the_vector_confidence_on_the_models_scale() -> None:
    nothing, clear = calibration.COSINE_SCALE[MODEL]
    low, high = (share * (clear - nothing) for share in STANDOUT_SCALE)
    near = nothing - STANDOUT_NEAR  # the least name-free cosine the stand-out vouches for
    assert vector_share(MODEL, near, 0.0, high) == 1.0
    assert vector_share(MODEL, near, 0.0, low) == 0.0
    assert 0.0 < vector_share(MODEL, near, 0.0, (low + high) / 2) < 1.0


def test_a_turn_standing_out_says_nothing_of_a_question_whose_name_free_cosine_is_far_under_the_scale() -> None:
    nothing, clear = calibration.COSINE_SCALE[MODEL]
    high = STANDOUT_SCALE[1] * (clear - nothing)
    assert vector_share(MODEL, nothing - STANDOUT_NEAR - 0.01, 0.0, high) == 0.0
    assert vector_share(MODEL, nothing - STANDOUT_NEAR, 0.0, high) == 1.0


def _known(question: str, found: dict[str, int]) -> Bm25:
    """The statistics of the question's words over ten memories, ``found`` the ones that contain each."""
    from mneme.memory.keywords import query_words

    words = query_words(question)
    counts = {word: found.get(word, 0) for word in words}
    return Bm25(words, KeywordMatches(documents=[], total_documents=10, total_chars=300, doc_freq=counts))


def test_a_person_no_memory_mentions_is_unknown() -> None:
    question = "What did Penelope cook for dinner?"
    assert unknown(question, _known(question, {"cook": 2, "dinner": 3})) == ("Penelope",)


def test_a_person_some_memory_mentions_is_known() -> None:
    question = "What did Penelope cook for dinner?"
    assert unknown(question, _known(question, {"penelope": 1, "cook": 2})) == ()


def test_a_possessor_no_memory_mentions_is_unknown() -> None:
    question = "What is the name of Thaddeus's dog?"
    assert unknown(question, _known(question, {"name": 4, "dog": 1})) == ("Thaddeus",)


def test_a_place_the_memory_says_otherwise_is_not_a_person() -> None:
    # "Colorado" is absent (the memory says "Denver"), but a destination is no one the question is about
    question = "In which month was Jon going to move to Colorado?"
    assert unknown(question, _known(question, {"jon": 5, "month": 1, "move": 2})) == ()


def test_a_month_in_a_persons_place_is_no_one() -> None:
    question = "What did May bring?"  # the calendar, not a person (a memory's date is metadata, not its words)
    assert unknown(question, _known(question, {"bring": 1})) == ()


def test_a_possessive_after_a_determiner_is_a_kind_not_a_person() -> None:
    question = "Where did I complete my Bachelor's degree?"
    assert unknown(question, _known(question, {"complete": 1, "degree": 1})) == ()


def test_a_turn_a_named_speaker_said_gets_the_speaker_bonus() -> None:
    said = MemoryCandidate(document=_doc("Dr. Ana Lima: I rehearse a Bach suite.", "d1"), similarity=0.5)
    assert speaker_bonus([said], ["Ana"]) == {"d1": SPEAKER_BONUS}


def test_a_turn_that_only_addresses_the_named_speaker_gets_none() -> None:
    addressed = MemoryCandidate(document=_doc("Melanie: Take care, Caroline!", "d2"), similarity=0.5)
    assert speaker_bonus([addressed], ["Caroline"]) == {}


def _counts(text: str, said_by: tuple[str, ...]) -> dict[str, float]:
    matches = KeywordMatches(documents=[], total_documents=10, total_chars=300, doc_freq={"caroline": 5})
    return Bm25(["caroline", "library"], matches, said_by=said_by).counts(text)


def test_a_named_speakers_name_does_not_count_where_a_turn_addresses_them() -> None:
    assert _counts("Melanie: Thanks, Caroline, that means a lot.", ("Caroline",)) == {}


def test_without_the_question_naming_her_the_address_counts() -> None:
    assert _counts("Melanie: Thanks, Caroline, that means a lot.", ()) == {"carolin": 1.0}


def test_a_named_speakers_name_still_counts_where_they_speak() -> None:
    counts = _counts("Caroline: I'm at the library now.", ("Caroline",))
    assert counts == {"carolin": SPEAKER_WEIGHT, "librari": 1.0}


def test_a_stamped_line_s_speaker_counts_as_its_speaker() -> None:
    counts = _counts("[8 May 2023] Caroline: I'm at the library now.", ("Caroline",))
    assert counts == {"carolin": SPEAKER_WEIGHT, "librari": 1.0}


def test_a_stamp_s_words_count_as_what_the_line_says() -> None:
    matches = KeywordMatches(documents=[], total_documents=10, total_chars=300, doc_freq={"may": 2})
    bm25 = Bm25(["may", "library"], matches)
    assert bm25.counts("[8 May 2023] Caroline: I'm at the library now.") == {"mai": 1.0, "librari": 1.0}
    assert bm25.counts("Caroline: I'm at the library now.") == {"librari": 1.0}


def test_a_store_that_counted_no_document_knows_no_one_as_unknown() -> None:
    # S3 Vectors has no keyword statistics: every word has a frequency of 0 there, and says nothing
    question = "What did Penelope cook for dinner?"
    words = ["penelope", "cook", "dinner"]
    nothing = KeywordMatches(documents=[], total_documents=0, total_chars=0, doc_freq=dict.fromkeys(words, 0))
    assert unknown(question, Bm25(words, nothing)) == ()


def test_where_does_maria_live_keeps_its_stand_out() -> None:
    nothing, clear = calibration.COSINE_SCALE[MODEL]
    assert vector_share(MODEL, 0.28, 0.0, STANDOUT_SCALE[1] * (clear - nothing)) == 1.0  # its name-free cosine
