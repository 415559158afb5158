"""Template variables, task-context warnings and the localized date and time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mneme.context import task_context_warnings
from mneme.context.dates import babel_locale, clock_time, long_date, user_zone
from mneme.context.variables import resolve_variables, template_values
from mneme.models import UserSettings
from tests.unit.context.fixtures import NOW, build, master_input


def test_current_time_in_a_task_context_produces_a_warning() -> None:
    # Given a task context that uses ${current_time}
    prompt = "It is ${current_time} now."

    # When it is checked
    warnings = task_context_warnings(prompt)

    # Then one warning names the variable and the caching problem
    assert len(warnings) == 1
    assert "${current_time}" in warnings[0]
    assert "cach" in warnings[0]


def test_current_date_in_a_task_context_produces_a_warning() -> None:
    # Given / When
    warnings = task_context_warnings("Today is ${current_date}.")

    # Then
    assert len(warnings) == 1
    assert "${current_date}" in warnings[0]


def test_a_stable_task_context_produces_no_warning() -> None:
    # Given / When / Then
    assert task_context_warnings("Help ${user_name} with ${project_id}.") == []


def test_the_assembled_context_carries_the_task_context_warning() -> None:
    # Given an agent whose task context uses ${current_time}
    # When the context is assembled
    assembled = build(master_input(task_context="Time: ${current_time}"))

    # Then the warning is reported and the time is resolved in the user's timezone
    assert any("${current_time}" in warning for warning in assembled.warnings)
    assert assembled.request["system"][0]["text"] == "Time: 10:05"


def test_known_variables_are_resolved_from_the_session() -> None:
    # Given the values of one request
    values = template_values(
        user_id="alice",
        settings=UserSettings(name="Anna", email="anna@example.com", language="en", timezone="UTC"),
        chat_id="chat-1",
        project_id="proj-7",
        now=NOW,
    )

    # When a template uses all of them
    text = resolve_variables(
        "${user_id}|${user_name}|${user_email}|${chat_id}|${project_id}|${current_date}|${current_time}",
        values,
    )

    # Then each is replaced
    assert text == "alice|Anna|anna@example.com|chat-1|proj-7|Monday, November 30, 2026|09:05"


def test_unknown_and_empty_variables_become_empty_strings() -> None:
    # Given a chat without project and a template with an unknown variable
    values = {"user_name": "Anna", "project_id": ""}

    # When it is resolved
    text = resolve_variables("[${unknown}] [${project_id}] [${user_email}] ${user_name}", values)

    # Then unknown, empty and missing values are empty strings
    assert text == "[] [] [] Anna"


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Monday, November 30, 2026"),
        ("de", "Montag, 30. November 2026"),
        ("fr-CA", "lundi 30 novembre 2026"),
    ],
)
def test_long_date_is_localized(language: str, expected: str) -> None:
    # Given a moment and a language
    # When the long date is formatted in UTC
    # Then it is in that language
    assert long_date(NOW, language, "UTC") == expected


def test_fr_ca_maps_to_the_babel_locale_with_region() -> None:
    # Given / When / Then
    assert babel_locale("fr-CA") == "fr_CA"


def test_unknown_language_falls_back_to_english_and_unknown_region_to_the_language() -> None:
    # Given an unknown language and a known language with an unknown region
    # When dates are formatted for them
    # Then the first is English and the second German
    assert long_date(NOW, "xx", "UTC") == "Monday, November 30, 2026"
    assert long_date(NOW, "de-ZZ", "UTC") == "Montag, 30. November 2026"


def test_a_timezone_past_midnight_changes_the_date() -> None:
    # Given 23:30 UTC on November 30
    late = datetime(2026, 11, 30, 23, 30, tzinfo=UTC)

    # When the date is formatted for Berlin and for Los Angeles
    berlin = long_date(late, "de", "Europe/Berlin")
    los_angeles = long_date(datetime(2026, 12, 1, 3, 0, tzinfo=UTC), "en", "America/Los_Angeles")

    # Then Berlin is already in December, Los Angeles is still in November
    assert berlin == "Dienstag, 1. Dezember 2026"
    assert los_angeles == "Monday, November 30, 2026"


def test_time_is_24_hour_in_the_users_timezone() -> None:
    # Given 15:07 UTC
    moment = datetime(2026, 11, 30, 15, 7, tzinfo=UTC)

    # When the time is formatted for UTC and for Berlin
    # Then it is HH:mm in 24-hour form
    assert (clock_time(moment, "UTC"), clock_time(moment, "Europe/Berlin")) == ("15:07", "16:07")


def test_a_zone_name_too_long_for_a_file_name_is_utc_not_an_error() -> None:
    assert user_zone("Europe/" + "x" * 300) is UTC
    assert user_zone("Europe/Berlin") is not UTC
