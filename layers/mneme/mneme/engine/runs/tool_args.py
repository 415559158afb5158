"""Tool arguments are validated against the tool's JSON schema before the call (SPEC §8)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from mneme.errors import InvalidInput, ToolError
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
    validator = _validator(schema, f"{tool}: the tool's input schema")
    try:
        validator(arguments)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise ToolError(f"{tool}: invalid arguments: {exc.message}") from exc
    return arguments


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise ToolError when ``schema`` cannot be compiled into a validator (a tool offered with it would fail
    every call)."""
    _validator(schema, "the input schema")


def _validator(schema: Mapping[str, Any], what: str) -> Callable[[Any], Any]:
    try:
        return _compiled(json.dumps(schema, sort_keys=True))
    except Exception as exc:  # whatever the compiler trips on: an unknown type, a bad regex, a non-object keyword
        raise ToolError(f"{what} is invalid: {exc}") from exc


def check_external_schemas(tools: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """An agent's external tools (name, input schema) at its save: a schema no validator compiles would fail
    every call of the tool, so it is refused with the tool named (InvalidInput on ``external_tools.N.input_schema``)."""
    for n, (name, schema) in enumerate(tools):
        try:
            check_schema(schema)
        except ToolError as exc:
            raise InvalidInput(
                f"external tool {name!r}: {exc.message}", field=f"external_tools.{n}.input_schema"
            ) from None
