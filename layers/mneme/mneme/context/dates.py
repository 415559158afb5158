"""Localized date and time in the user's language and timezone (SPEC §3).

Babel is imported inside the functions, not at module import: its locale data is large and Lambda cold
starts should only pay for it when a date is actually formatted. The default language, English (``en``,
``en-US``), is formatted without it: Babel's import and its locale data cost ~20–30 ms of a cold start's
first run (bench/cold_start.py), and its full English pattern ``EEEE, MMMM d, y`` is fixed; a test pins
the two equal, day by day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo
from functools import lru_cache

from mneme.models.user import ENGLISH_TAGS, zone_of

DEFAULT_LANGUAGE = "en"
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


@lru_cache(maxsize=128)
def babel_locale(language: str) -> str:
    """The Babel locale identifier for a BCP-47 tag (``en`` → ``en``, ``fr-CA`` → ``fr_CA``).

    An unknown region or script falls back to the bare language, an unknown language to English.
    """
    from babel import Locale, UnknownLocaleError

    tag = (language or DEFAULT_LANGUAGE).strip().replace("_", "-")
    for candidate in (tag, tag.split("-", 1)[0]):
        try:
            return str(Locale.parse(candidate, sep="-"))
        except (UnknownLocaleError, ValueError, TypeError):
            continue
    return DEFAULT_LANGUAGE


@lru_cache(maxsize=128)
def user_zone(timezone: str) -> tzinfo:
    """The IANA zone, or UTC when the name is empty, unknown or malformed."""
    return zone_of(timezone) or UTC


def local_datetime(now: datetime, timezone: str) -> datetime:
    """``now`` in the user's timezone (a naive ``now`` is taken as UTC)."""
    aware = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    return aware.astimezone(user_zone(timezone))


def long_date(now: datetime, language: str, timezone: str) -> str:
    """The long localized date, e.g. ``Monday, November 30, 2026`` / ``Montag, 30. November 2026``."""
    return _formatted_day(local_datetime(now, timezone).date(), language)


def english_full_date(day: date) -> str:
    """Babel's full English date (``EEEE, MMMM d, y``), e.g. ``Tuesday, December 1, 2026``."""
    return f"{_DAYS[day.weekday()]}, {_MONTHS[day.month - 1]} {day.day}, {day.year}"


@lru_cache(maxsize=1024)
def _formatted_day(day: date, language: str) -> str:
    if (language.strip().replace("_", "-").lower() or DEFAULT_LANGUAGE) in ENGLISH_TAGS:
        return english_full_date(day)
    from babel.dates import format_date

    text: str = format_date(day, format="full", locale=babel_locale(language))
    return text


def clock_time(now: datetime, timezone: str) -> str:
    """The 24-hour ``HH:mm`` time in the user's timezone."""
    return local_datetime(now, timezone).strftime("%H:%M")


def iso_day(moment: datetime, timezone: str) -> str:
    """``YYYY-MM-DD`` of ``moment`` in the user's timezone."""
    return local_datetime(moment, timezone).strftime("%Y-%m-%d")
