"""What the command line's commands share: printing the API's JSON, and an argument an action needs."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from pydantic import BaseModel

from mneme_client.cli_input import InputError


def print_json(out: TextIO, value: Any) -> None:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def need(args: argparse.Namespace, name: str) -> str:
    """An argument the action needs though the parser lets it out (``agents get``): bad usage, exit 2."""
    value = getattr(args, name)
    if not value:
        raise InputError(f"{args.command} {args.action}: {name} is required")
    return str(value)
