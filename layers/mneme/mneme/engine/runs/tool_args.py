"""Tool arguments are validated against the tool's JSON schema before the call (SPEC §8)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from mneme.errors import ToolError
from mneme.schema_refs import has_remote_ref


@lru_cache(maxsize=256)
def _compiled(schema_json: str) -> Callable[[Any], Any]:
    import fastjsonschema

    schema = json.loads(schema_json)
    if has_remote_ref(schema):  # fastjsonschema would fetch it (urlopen) while compiling: never
        raise fastjsonschema.JsonSchemaDefinitionException("a $ref outside the schema is not allowed")
    validator: Callable[[Any], Any] = fastjsonschema.compile(schema)
    return validator


def validate_arguments(tool: str, schema: Mapping[str, Any], arguments: Any) -> dict[str, Any]:
    """Return the arguments when they match; a ToolError the model can correct itself from otherwise."""
    import fastjsonschema

    if not isinstance(arguments, dict):
        raise ToolError(f"{tool}: the arguments must be a JSON object")
    try:
        _compiled(json.dumps(schema, sort_keys=True))(arguments)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise ToolError(f"{tool}: invalid arguments: {exc.message}") from exc
    except fastjsonschema.JsonSchemaDefinitionException as exc:
        raise ToolError(f"{tool}: the tool's input schema is invalid: {exc}") from exc
    return arguments


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise ToolError when ``schema`` cannot be compiled into a validator (a tool offered with it would fail
    every call)."""
    import fastjsonschema

    try:
        _compiled(json.dumps(schema, sort_keys=True))
    except (fastjsonschema.JsonSchemaDefinitionException, ValueError, TypeError, RecursionError) as exc:
        raise ToolError(f"the input schema is invalid: {exc}") from exc
