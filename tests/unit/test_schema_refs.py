"""A stored tool schema with a remote ``$ref`` (saved before the check, or from an MCP server) is never
compiled: fastjsonschema would fetch the URL while compiling it."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.engine.runs.tool_args import check_schema, validate_arguments
from mneme.errors import ToolError

REMOTE = {"type": "object", "properties": {"q": {"$ref": "http://169.254.169.254/latest/meta-data/x.json"}}}


@pytest.fixture
def fetched(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    urls: list[Any] = []

    def urlopen(url: Any, *args: Any, **kwargs: Any) -> Any:
        urls.append(url)
        raise OSError("no fetching in this test")

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    return urls


def test_arguments_against_a_remote_ref_schema_are_a_tool_error_and_nothing_is_fetched(fetched: list[Any]) -> None:
    with pytest.raises(ToolError, match=r"\$ref outside the schema"):
        validate_arguments("lookup", REMOTE, {"q": "x"})
    assert fetched == []


def test_checking_a_remote_ref_schema_fails_and_fetches_nothing(fetched: list[Any]) -> None:
    with pytest.raises(ToolError, match=r"\$ref outside the schema"):
        check_schema(REMOTE)
    assert fetched == []


def test_a_local_ref_still_validates() -> None:
    schema = {"type": "object", "$defs": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/n"}}}
    assert validate_arguments("count", schema, {"n": 3}) == {"n": 3}
    with pytest.raises(ToolError, match="invalid arguments"):
        validate_arguments("count", schema, {"n": "three"})
