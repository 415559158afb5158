"""Who says a line of a transcript (:mod:`mneme.memory.speakers`): the forms transcripts are written in, a time or
date before the name read as the line's stamp, and what is not a line (issue 30: with the session's date in front
of each line, LoCoMo's lines were taken for notes)."""

from __future__ import annotations

import pytest

from mneme.memory.speakers import Said, said, speaker_name, speaker_prefix, spoken


@pytest.mark.parametrize(
    ("text", "name", "stamp"),
    [
        ("Kate: I adopted a dog.", "Kate", ""),
        ("Dr. Ana Lima: I adopted a dog.", "Dr. Ana Lima", ""),
        ("[8 May 2023] Kate: I adopted a dog.", "Kate", "[8 May 2023]"),
        ("(10:32) Kate: I adopted a dog.", "Kate", "(10:32)"),
        ("[Mon 10:32] Kate: I adopted a dog.", "Kate", "[Mon 10:32]"),
        ("08.05.2023 Kate: I adopted a dog.", "Kate", "08.05.2023"),
        ("2023-05-08 13:56 Kate: I adopted a dog.", "Kate", "2023-05-08 13:56"),
        ("2023-05-08T13:56:00Z Kate: I adopted a dog.", "Kate", "2023-05-08T13:56:00Z"),
        ("1:56 pm on 8 May, 2023 - Kate: I adopted a dog.", "Kate", "1:56 pm on 8 May, 2023"),
        ("Kate (10:32): I adopted a dog.", "Kate", ""),
        ("user: I adopted a dog.", "user", ""),
        ("Assistant: Congratulations!", "Assistant", ""),
    ],
)
def test_a_line_s_speaker_and_stamp_are_read_in_the_forms_transcripts_use(text: str, name: str, stamp: str) -> None:
    line = said(text)
    assert line is not None
    assert (line.name, text[: line.stamp_end]) == (name, stamp)
    assert text[line.body :] in ("I adopted a dog.", "Congratulations!")


@pytest.mark.parametrize(
    "text",
    [
        "Maria has two cats.",
        "3 cats: Tom, Mia and Pixel.",
        "The plan: go to Oslo.",
        "10:32 the train left.",
        "Remember to call Kate: she waits.",
        "userland: a word that starts like a role",
        "Kate:no space after the colon",
        "[8 May 2023] we adopted a dog.",
        "8 May: we adopted a dog.",
        "2. Budget: keep it under 500.",
        "(a) Budget: keep it under 500.",
        "[1] Budget: keep it under 500.",
        "**Budget:** keep it under 500.",
        "Budget (optional): keep it under 500.",
    ],
)
def test_a_note_is_no_line(text: str) -> None:
    assert said(text) is None
    assert (speaker_name(text), speaker_prefix(text), spoken(text)) == ("", 0, text)


def test_what_a_line_says_is_without_its_stamp() -> None:
    assert spoken("[8 May 2023] Kate: I adopted a dog.") == "Kate: I adopted a dog."
    assert spoken("1:56 pm on 8 May, 2023 - Kate: Hi!") == "Kate: Hi!"


def test_a_line_without_a_stamp_is_said_as_written() -> None:
    assert spoken("Kate: I adopted a dog.") == "Kate: I adopted a dog."
    assert said("Kate: Hi!") == Said("Kate", 0, 6)
