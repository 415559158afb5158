"""Remote ``$ref`` in a JSON Schema: a validator compiling it would fetch the URL (fastjsonschema does, with
``urlopen``) — from inside the VPC-less Lambda or the local server, at a schema author's choice. mneme's
tool schemas may refer only inside themselves (``#/…``)."""

from __future__ import annotations

from typing import Any


def has_remote_ref(value: Any) -> bool:
    """Whether any ``$ref`` in ``value`` points outside the schema itself."""
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            return True
        return any(has_remote_ref(item) for item in value.values())
    if isinstance(value, list):
        return any(has_remote_ref(item) for item in value)
    return False
