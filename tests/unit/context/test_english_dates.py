"""The default language's dates are formatted without Babel, and exactly as Babel formats them."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from babel.dates import format_date

from mneme.context.dates import english_full_date, long_date

LAYER = Path(__file__).resolve().parents[3] / "layers" / "mneme"


@pytest.mark.parametrize("locale", ["en", "en_US"])
def test_the_english_date_equals_babels_full_date_every_day_of_five_years(locale: str) -> None:
    # Given every day from 2024 to 2028 and the first and last representable years
    days = [date(2024, 1, 1) + timedelta(days=n) for n in range(5 * 366)] + [date(1, 1, 1), date(9999, 12, 31)]

    # When each is formatted both ways
    differing = [d for d in days if english_full_date(d) != format_date(d, format="full", locale=locale)]

    # Then none differs
    assert differing == []


def _probe(code: str) -> dict[str, object]:
    program = f"import json, sys\nsys.path.insert(0, {str(LAYER)!r})\n{code}\n"
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.mark.parametrize("language", ["en", "en-US", "EN-us", ""])
def test_an_english_date_loads_no_babel(language: str) -> None:
    # Given a fresh interpreter
    # When it formats a date in an English tag
    result = _probe(
        "from datetime import datetime, UTC\nfrom mneme.context.dates import long_date\n"
        f"text = long_date(datetime(2026, 12, 1, tzinfo=UTC), {language!r}, 'UTC')\n"
        "print(json.dumps({'text': text, 'babel': 'babel' in sys.modules}))"
    )

    # Then the date is English and Babel was never imported
    assert result == {"text": "Tuesday, December 1, 2026", "babel": False}


def test_another_language_still_goes_through_babel() -> None:
    # Given a fresh interpreter
    # When it formats a German date
    result = _probe(
        "from datetime import datetime, UTC\nfrom mneme.context.dates import long_date\n"
        "text = long_date(datetime(2026, 12, 1, tzinfo=UTC), 'de', 'UTC')\n"
        "print(json.dumps({'text': text, 'babel': 'babel' in sys.modules}))"
    )

    # Then Babel formatted it
    assert result == {"text": "Dienstag, 1. Dezember 2026", "babel": True}


def test_british_english_keeps_its_own_pattern() -> None:
    # Given / When / Then: only en and en-US share the fixed pattern; en-GB is Babel's
    assert long_date(datetime(2026, 12, 1, tzinfo=UTC), "en-GB", "UTC") == format_date(
        date(2026, 12, 1), format="full", locale="en_GB"
    )
    assert long_date(datetime(2026, 12, 1, tzinfo=UTC), "en-GB", "UTC") != "Tuesday, December 1, 2026"


def test_user_settings_in_english_validate_without_babel() -> None:
    # Given a fresh interpreter
    # When settings in English are validated, then settings in German
    result = _probe(
        "from mneme.models.user import UserSettings\n"
        "UserSettings(language='en-US'); english = 'babel' in sys.modules\n"
        "UserSettings(language='de'); german = 'babel' in sys.modules\n"
        "print(json.dumps({'english': english, 'german': german}))"
    )

    # Then only the German ones asked Babel
    assert result == {"english": False, "german": True}
