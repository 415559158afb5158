"""User settings (SPEC §2) and the authenticated caller."""

import re
from contextlib import suppress
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from mneme.models.common import UserId, is_stored, reserved_user_id

#: language[-script][-region][-variant]… then extensions (``-u-ca-buddhist``) and private use (``-x-…``): RFC 5646
_BCP47 = re.compile(
    r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*(-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*(-[Xx](-[A-Za-z0-9]{1,8})+)?$"
)
_SINGLETON = re.compile(r"-[A-Za-z0-9](?=-|$)")
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
#: the default language's tags (lower case): known without asking Babel, whose import and locale data cost
#: a cold start ~20–30 ms (mneme/context/dates.py formats their dates without it too)
ENGLISH_TAGS = frozenset({"en", "en-us"})
#: the longest IANA zone name is 32 characters ("America/Argentina/ComodRivadavia"); a longer one is no zone, and
#: a name over the file system's 255 bytes made ``ZoneInfo`` raise ``OSError`` (a 500 before this bound)
MAX_ZONE_NAME = 64
#: the default timezone: known without reading the list of zone names
DEFAULT_ZONE = "UTC"


@cache
def iana_zone_names() -> frozenset[str]:
    """The IANA zone names. ``ZoneInfo`` alone opens any file of the host's tz database — ``localtime`` (the
    server's own zone), ``posixrules``, ``right/…``, ``posix/…`` — whose meaning depends on the host, so a name
    must be one of the list the pinned ``tzdata`` package ships (one small file, read once when a zone other than
    the default is first checked; through ``importlib.resources`` its imports would cost a cold start ~35 ms).
    Without ``tzdata``: what ``available_timezones()`` finds, less ``localtime``, which it lists when present."""
    spec = find_spec("tzdata")
    if spec is not None and spec.origin is not None:
        with suppress(OSError):
            listed = (Path(spec.origin).parent / "zones").read_text(encoding="utf-8").split()
            return frozenset(listed) | {DEFAULT_ZONE}
    from zoneinfo import available_timezones

    return frozenset(available_timezones() - {"localtime"}) | {DEFAULT_ZONE}


def zone_of(name: str) -> ZoneInfo | None:
    """The IANA zone ``name`` names, or None: unknown, malformed, too long, or a file of the host's tz database
    that is no IANA zone (never an exception)."""
    if not name or len(name) > MAX_ZONE_NAME:
        return None
    if name != DEFAULT_ZONE and name not in iana_zone_names():
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


class Caller(BaseModel, defer_build=True):
    """Who is calling: taken only from the verified JWT claims, never from a body."""

    model_config = ConfigDict(frozen=True)

    user_id: UserId
    is_admin: bool = False

    @field_validator("user_id")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        reason = reserved_user_id(value)
        if reason is not None:
            raise ValueError(f"not a usable user id: {reason}")
        return value


class UserSettings(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore")

    name: Annotated[str, Field(max_length=200)] = ""
    email: Annotated[str, Field(max_length=254)] | None = None
    language: str = "en"
    timezone: str = DEFAULT_ZONE

    @field_validator("email", mode="before")
    @classmethod
    def _blank_email(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("email")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and not _EMAIL.match(value):
            raise ValueError(f"email is not an address: {value!r}")
        return value

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        if not _BCP47.match(value):
            raise ValueError(f"language must be a BCP-47 tag such as 'en', 'de' or 'fr-CA', got {value!r}")
        if value.lower() in ENGLISH_TAGS:
            return value
        from babel import Locale, UnknownLocaleError

        locale = _SINGLETON.split(value, maxsplit=1)[0]  # what Babel knows: the tag before its extensions
        try:
            Locale.parse(locale.replace("-", "_"))
        except (UnknownLocaleError, ValueError) as exc:
            raise ValueError(f"unknown language {value!r}") from exc
        return value

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str, info: ValidationInfo) -> str:
        """An IANA name on input; a name stored before that check (``localtime``) still loads: its dates are UTC."""
        if zone_of(value) is None and not is_stored(info):
            shown = value if len(value) <= MAX_ZONE_NAME else f"{value[:MAX_ZONE_NAME]}…"
            raise ValueError(f"timezone must be an IANA name such as 'Europe/Berlin', got {shown!r}")
        return value
