"""Template variables (``${name}``) in a task context (SPEC §3)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mneme.context.dates import clock_time, long_date

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import datetime

    from mneme.models import UserSettings

TEMPLATE_VARIABLES: tuple[str, ...] = (
    "user_id",
    "user_name",
    "user_email",
    "chat_id",
    "project_id",
    "current_date",
    "current_time",
)
#: variables whose value changes while a chat goes on: using them breaks prompt caching
VOLATILE_VARIABLES: tuple[str, ...] = ("current_date", "current_time")

_VARIABLE = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")


def used_variables(template: str) -> list[str]:
    """The variable names a template uses, in order of first use."""
    return list(dict.fromkeys(match.group(1) for match in _VARIABLE.finditer(template)))


def resolve_variables(template: str, values: Mapping[str, str | None]) -> str:
    """Replace every ``${name}``; an unknown name or an empty / missing value becomes the empty string."""
    return _VARIABLE.sub(lambda match: values.get(match.group(1)) or "", template)


def task_context_warnings(context_prompt: str) -> list[str]:
    """Warnings for a task context: ``${current_date}`` / ``${current_time}`` break prompt caching, and a name
    that is no template variable (a typo such as ``${user_nmae}``) always becomes the empty string."""
    used = used_variables(context_prompt)
    return [
        f"The task context uses ${{{name}}}: its value changes "
        f"{'every minute' if name == 'current_time' else 'every day'}, so the cached prompt prefix is "
        "invalidated and every request costs full price. The current date and time are already appended "
        "to each user message; remove the variable unless the model needs it in the system prompt."
        for name in used
        if name in VOLATILE_VARIABLES
    ] + [
        f"The task context uses ${{{name}}}, which is not a template variable: it becomes the empty string "
        f"(the variables are {', '.join(TEMPLATE_VARIABLES)})"
        for name in used
        if name not in TEMPLATE_VARIABLES
    ]


def template_values(
    *,
    user_id: str,
    settings: UserSettings,
    chat_id: str | None,
    project_id: str | None,
    now: datetime,
) -> dict[str, str]:
    """The values of every template variable for one request."""
    return {
        "user_id": user_id,
        "user_name": settings.name,
        "user_email": settings.email or "",
        "chat_id": chat_id or "",
        "project_id": project_id or "",
        "current_date": long_date(now, settings.language, settings.timezone),
        "current_time": clock_time(now, settings.timezone),
    }


def resolve_task_context(template: str, values: Callable[[], Mapping[str, str | None]]) -> str:
    """Resolve a task context, computing the values only when it uses a variable."""
    return resolve_variables(template, values()) if _VARIABLE.search(template) else template
