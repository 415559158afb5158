"""What the command line is given that cannot be used — a file it cannot read or write, a body that is not
JSON, a value the request's model refuses before anything is sent — said in one line (exit 2), never as a
Python traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError


class InputError(Exception):
    """An argument of the command line that cannot be used; its text names it."""


def read_text(source: str) -> str:
    """The text of the file ``source`` (``-``: stdin)."""
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {source}: {getattr(error, 'strerror', None) or error}") from None


def read_json(source: str) -> Any:
    """The JSON value of the file ``source`` (``-``: stdin)."""
    text = read_text(source)
    try:
        return json.loads(text)
    except ValueError as error:
        raise InputError(f"{'stdin' if source == '-' else source} is not JSON: {error}") from None


def refused(error: ValidationError | OSError) -> str:
    """One line for what was refused: each invalid field and why, or the file and the system's reason."""
    if isinstance(error, OSError):
        return f"{error.filename or 'a file'}: {error.strerror or error}"
    fields = (f"{'.'.join(map(str, item['loc'])) or 'value'}: {item['msg']}" for item in error.errors())
    return f"invalid {error.title}: " + "; ".join(fields)
