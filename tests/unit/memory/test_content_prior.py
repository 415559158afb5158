"""The content factor (issue 30.1): how much a memory says, counted in non-function words."""

from __future__ import annotations

import pytest

from mneme.memory.content_prior import (
    CHAT_LINE_CHARS,
    CONTENT_WORDS,
    FLOOR,
    QUESTION_FACTOR,
    asks_only,
    content_factor,
    content_words,
)


def test_a_greeting_counts_only_its_non_function_words() -> None:
    assert content_words("Kate: Hey Tom!") == 2


def test_function_words_and_contractions_count_nothing() -> None:
    assert content_words("Kate: Was it you? I'm not so sure it was.") == 1  # "sure"


def test_the_speaker_prefix_is_not_content() -> None:
    assert content_words("Dr. Ana Lima: Hi!") == content_words("Hi!") == 1


def test_a_repeated_word_counts_once() -> None:
    assert content_words("Tom: ha ha ha") == 1


def test_numbers_are_content() -> None:
    assert content_words("Tom: 42 marathons") == 2


def test_an_unspaced_script_counts_a_word_per_four_characters() -> None:
    assert content_words("我最近开始学习陶艺课程了") == 3


def test_a_sentence_with_enough_content_keeps_all_its_relevance() -> None:
    assert content_words("Kate: I took a pottery class downtown.") >= CONTENT_WORDS
    assert content_factor("Kate: I took a pottery class downtown.") == 1.0


def test_a_turn_of_function_words_keeps_the_floor() -> None:
    assert content_factor("Kate: So it was!") == FLOOR


def test_fewer_words_keep_less() -> None:
    one, two = content_factor("Kate: Pottery!"), content_factor("Kate: Pottery, really!")
    assert FLOOR < one < two < 1.0
    assert one == pytest.approx(FLOOR + (1 - FLOOR) / CONTENT_WORDS)


def test_a_memorys_factor_is_read_once_across_searches(content_reads) -> None:
    from mneme.memory import content_prior

    reads = content_reads(content_prior)
    first = content_prior.content_factor("Kate: I paint landscapes on Sundays.")
    assert content_prior.content_factor("Kate: I paint landscapes on Sundays.") == first
    assert len(reads) == 1
    content_prior.content_factor("Kate: Hey!")
    assert len(reads) == 2


def test_a_line_that_only_asks_keeps_the_question_s_share_of_its_factor() -> None:
    asked = "Maria: Where are you working these days?"
    assert asks_only(asked)
    assert content_factor(asked) == pytest.approx(
        QUESTION_FACTOR * content_factor("Maria: Where are you working these days.")
    )


def test_a_line_that_tells_before_it_asks_keeps_all_its_factor() -> None:
    told = "Maria: I switched jobs, I'm at the city hospital now. Guess which one?"
    assert not asks_only(told)
    assert content_factor(told) == 1.0


def test_a_statement_keeps_all_its_factor() -> None:
    assert not asks_only("Maria: I'm at the city hospital now.")


def test_a_long_message_that_ends_with_a_question_keeps_all_its_factor() -> None:
    long = "I just got a new car, a compact electric one " + "with a long range " * 20 + "any tips for winter"
    assert len(long) + 1 > CHAT_LINE_CHARS
    assert not asks_only(long + "?")
    assert asks_only(long[: CHAT_LINE_CHARS - 1] + "?")


def test_a_full_width_question_mark_asks_too() -> None:
    assert asks_only("你最近在哪里工作？")
