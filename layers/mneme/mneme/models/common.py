"""Constrained field types shared by the models."""

import json
import math
import re
from datetime import UTC, date, datetime, time
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, Strict, StringConstraints, ValidationInfo

#: the validation context of a model read back from storage (``model_validate_json(..., context=STORED)``): a check
#: a later release added to a field's input (a timezone must be an IANA name) does not refuse what an earlier one
#: stored — the user's settings, and their runs, must still load for them to correct it
STORED: dict[str, Any] = {"stored": True}


def is_stored(info: ValidationInfo) -> bool:
    """Whether the model is being read back from storage (:data:`STORED`), not taken from a request."""
    return isinstance(info.context, dict) and info.context.get("stored") is True


#: agent ids, task ids, skill names: lowercase letters, digits and hyphens, at most 64 characters.
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN)]
_SLUG = re.compile(SLUG_PATTERN)


def is_slug(value: str) -> bool:
    """Whether ``value`` has the form of an agent id, task id or skill name."""
    return _SLUG.match(value) is not None


#: opaque ids chosen by a client or generated (chat, project, session, run, call ids).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
Identifier = Annotated[str, StringConstraints(pattern=ID_PATTERN)]

#: a user id as it comes from a verified JWT ``sub`` claim (see :func:`reserved_user_id` for what is refused).
UserId = Annotated[str, StringConstraints(min_length=1, max_length=128)]

Label = Annotated[str, StringConstraints(min_length=1, max_length=128, strip_whitespace=True)]
ShortText = Annotated[str, StringConstraints(max_length=1024)]
LongText = Annotated[str, StringConstraints(max_length=100_000)]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain a character other than whitespace")
    return value


#: text that is read for its meaning (a run's input, a query, a memory's content): whitespace alone is refused
#: with a 400 naming the field (it embeds to nothing; the embedding model would refuse it after the run began)
NotBlank = AfterValidator(_not_blank)


def _json_number(value: Any) -> Any:
    if isinstance(value, bool | str):
        raise ValueError(f"must be a JSON number, not a {'boolean' if isinstance(value, bool) else 'string'}")
    if isinstance(value, float) and not math.isfinite(value):  # NaN / Infinity: Python's JSON reader takes them
        raise ValueError("must be a finite number")
    return value


#: JSON's own types at the API's edge (pydantic's lax mode read ``"global": 0`` as false, ``"yes"`` as true,
#: ``top_k: true`` as 1 and ``"5"`` as 5): a flag is ``true`` or ``false``; a number is a JSON number (``5.0`` is
#: the integer 5, as JSON Schema counts it; ``5.5`` is no integer). Fields a request sets use these
Flag = Annotated[bool, Strict()]
Number = BeforeValidator(_json_number)
TopK = Annotated[int, Field(ge=1, le=20), Number]

#: the moments a client may give (``observed_at``, ``as_of``, a run list's ``since`` / ``until``): in UTC between
#: these, so that storing one (microseconds since the epoch), reading it back and a day's arithmetic around it never
#: leave the dates Python can hold ("0001-01-01T00:00:00+14:00" is in year 0 in UTC)
EARLIEST_MOMENT = datetime(2, 1, 1, tzinfo=UTC)
LATEST_MOMENT = datetime(9998, 1, 1, tzinfo=UTC)


def _in_range(value: datetime) -> datetime:
    at = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    try:
        inside = EARLIEST_MOMENT <= at.astimezone(UTC) < LATEST_MOMENT
    except OverflowError:
        inside = False
    if not inside:
        raise ValueError(
            f"must be between {EARLIEST_MOMENT.date().isoformat()} and {LATEST_MOMENT.date().isoformat()} in UTC"
        )
    return value


Moment = Annotated[datetime, AfterValidator(_in_range)]
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _end_of_day(value: Any) -> Any:
    """A date without a time (``2026-12-07``) as the last microsecond of that day; anything else as given."""
    if isinstance(value, str) and _DATE_ONLY.match(value):
        try:
            return datetime.combine(date.fromisoformat(value), time.max)
        except ValueError:
            return value  # no such day (2026-02-30): refused as a moment, naming the field
    return value


#: the end of a time window (a run list's ``until``, a search's ``as_of``): a date alone includes its whole day —
#: parsed as a moment, it was the day's first instant, leaving that day out — as ``since`` a date starts at that
#: day's beginning (and ``observed_at``, a moment, is a date's first instant)
MomentUntil = Annotated[Moment, BeforeValidator(_end_of_day)]


def not_after(moment: datetime, now: datetime) -> datetime | None:
    """``moment`` (UTC when it has no zone) if it is not in the future; the end of today (what a
    :data:`MomentUntil` reads today's date as) is now, the day not being over; None for any other later moment."""
    at = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    if at <= now:
        return at
    today_ends = datetime.combine(now.astimezone(UTC).date(), time.max, tzinfo=UTC)
    return now if at == today_ends else None


#: the most bytes a client's free-form object takes as JSON: each chunk and each revision of an entry carries its
#: metadata, and a revision is one item of at most 400 KB (half a megabyte stored the entry, then failed its
#: revision: a 413 for a write that was made, and never audited)
MAX_STORABLE_JSON_BYTES = 16_384


def storable_json(value: dict[str, Any]) -> dict[str, Any]:
    """A client's free-form object (a memory's ``metadata``): stored and sent back as JSON, so valid Unicode (a
    lone surrogate cannot be stored: it was a 500 after the write), without NaN or Infinity (read back as
    null), and at most :data:`MAX_STORABLE_JSON_BYTES`."""
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (it holds a lone surrogate)") from None
    except ValueError:
        raise ValueError("must be JSON without NaN or Infinity") from None
    if size > MAX_STORABLE_JSON_BYTES:
        raise ValueError(f"must take at most {MAX_STORABLE_JSON_BYTES:,} bytes as JSON, not {size:,}")
    return value


#: the owner value of global (admin-created) agents and skills in the models. It is never a key: the
#: configuration store keeps global resources in their own partition (``GLOBAL``), which no user id maps to,
#: and a token whose ``sub`` equals it (or any reserved value) is refused (:func:`reserved_user_id`).
GLOBAL_OWNER = "__global__"

#: the longest user id (``sub``) accepted
MAX_USER_ID_CHARS = 128
#: the separator of every key scheme (``OWNER#<id>``, ``USER#<id>#CHAT#<chat>``, ``RUN#<id>``)
KEY_SEPARATOR = "#"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SENTINEL = re.compile(r"^__.*__$")


def reserved_user_id(value: str) -> str | None:
    """Why ``value`` cannot be a user id (None when it can): empty, longer than 128 characters, a reserved
    sentinel such as the global owner (any ``__name__``), or containing the key separator ``#``, a control
    character or a line separator — each could make one user's keys collide with another's or with the
    global ones."""
    if not value or not value.strip():
        return "it is empty"
    if len(value) > MAX_USER_ID_CHARS:
        return f"it is longer than {MAX_USER_ID_CHARS} characters"
    if _SENTINEL.match(value):
        return f"{value!r} is a reserved name"
    if KEY_SEPARATOR in value:
        return f"it contains {KEY_SEPARATOR!r}, the separator of mneme's keys"
    if _CONTROL.search(value):
        return "it contains a control character"
    return None
