"""An agent with one external Lambda tool, and the offline-model input that calls it (SPEC §8, §11)."""

from __future__ import annotations

import json
from typing import Any

from mneme.models.agent import ExternalTool
from mneme.models.run import Run, RunEvent
from tests.support.deps import World

LOOKUP = ExternalTool(
    name="lookup",
    description="Look a number up.",
    input_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    function_arn="arn:aws:lambda:us-east-1:123456789012:function:lookup",
)


def lookup_answer(function_arn: str, payload: dict[str, Any]) -> str:
    """The fake Lambda behind ``lookup``: answers ``found <n>``."""
    return f"found {payload['arguments']['n']}"


def lookup_lines(*numbers: int) -> str:
    """Offline-model directives, one ``lookup`` call per line (all emitted in one model turn)."""
    return "\n".join(f"/tool lookup {json.dumps({'n': n})}" for n in numbers)


def lookups_made(world: World) -> list[int]:
    """The ``n`` of every lookup the fake Lambda actually received, in order."""
    return [payload["arguments"]["n"] for _, payload in world.tools.calls]


def events(world: World, run: Run) -> list[RunEvent]:
    return world.deps.runs.list_events(run.run_id)


def error_messages(world: World, run: Run) -> list[str]:
    return [str(e.data.get("message")) for e in events(world, run) if e.type == "error"]


def completed_statuses(world: World, run: Run) -> list[str]:
    return [str(e.data.get("status")) for e in events(world, run) if e.type == "completed"]
