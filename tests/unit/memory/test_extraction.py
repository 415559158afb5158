"""The pure part of memory extraction (issue 13.2): the offline extractor's rules and the output validation."""

from __future__ import annotations

from mneme.memory.extraction import extraction_request, offline_extract, parse_extraction, requested_strategies


def _facts(text: str) -> list[tuple[str, str | None]]:
    return [(i.text, i.subject) for i in offline_extract(text, ["facts", "preferences"]).items]


def test_a_fact_carries_the_phrase_before_its_value_as_subject() -> None:
    assert _facts("I live in Porto with two flatmates.") == [
        ("The user says: I live in Porto with two flatmates.", "i live in")
    ]


def test_an_update_has_the_same_subject_without_the_adverb() -> None:
    [(_, subject)] = _facts("We moved last week, I now live in Oslo.")
    assert subject == "i live in"


def test_i_am_keeps_the_next_word_so_unrelated_facts_do_not_collide() -> None:
    subjects = {s for _, s in _facts("I am learning Spanish. I am allergic to peanuts.")}
    assert subjects == {"i am learning", "i am allergic"}


def test_my_x_is_called_is_a_fact_about_x() -> None:
    assert _facts("My sister is called Clara, she is older.")[0][1] == "my sister is called"


def test_a_preference_has_no_subject() -> None:
    [item] = offline_extract("I really prefer green tea over coffee.", ["preferences"]).items
    assert item.kind == "preference" and item.subject is None


def test_small_talk_extracts_nothing() -> None:
    assert _facts("The weather in Oslo looked grim on the news today.") == []


def test_only_the_requested_strategies_are_extracted() -> None:
    assert [i.kind for i in offline_extract("I live in Porto. I love tea.", ["facts"]).items] == ["fact"]


def test_the_request_names_its_strategies() -> None:
    request = extraction_request("m", ["facts", "summary"], "hi", "hello")
    assert requested_strategies(request["system"][0]["text"]) == ["facts", "summary"]


def test_malformed_output_is_a_warning_not_an_exception() -> None:
    for text in ("no json here", '{"items": [{"kind": "rumour", "text": "x"}]}', '{"items": "nope"}'):
        extracted, warning = parse_extraction(text)
        assert extracted is None and warning


def test_json_inside_prose_is_accepted() -> None:
    extracted, warning = parse_extraction('Here: {"items": [{"kind": "fact", "text": "A", "subject": "s"}]} done')
    assert warning is None and extracted is not None and extracted.items[0].subject == "s"


def test_a_turn_with_a_speaker_is_read_after_it_and_keeps_who_said_it() -> None:
    # issue 30.4: "Kate: I live in Oslo." fired nothing (the clause starts with "Kate:") or said "The user says"
    assert _facts("Kate: I live in Oslo. I love hiking.") == [
        ("Kate says: I live in Oslo.", "kate: i live in"),
        ("Kate says: I love hiking.", None),
    ]


def test_two_speakers_facts_do_not_supersede_each_other() -> None:
    assert _facts("Kate: I live in Oslo.")[0][1] != _facts("Tom: I live in Rome.")[0][1]


def test_a_stamped_line_s_items_say_who_said_them() -> None:
    assert _facts("[8 May 2023] Kate: I live in Oslo.") == [("Kate says: I live in Oslo.", "kate: i live in")]


def test_a_date_before_no_speaker_is_the_user_s() -> None:
    assert _facts("8 May: I live in Oslo.") == [("The user says: I live in Oslo.", "i live in")]
