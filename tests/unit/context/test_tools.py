"""Tool specs: which tools are offered and how they are serialized."""

from __future__ import annotations

import json

import pytest

from mneme.context import INTERNAL_TOOL_SPECS, build_tool_specs
from mneme.models import ExternalTool
from tests.unit.context.fixtures import CRM_LOOKUP, SAVE_DRAFT, build, dumps, master_input

ARN = "arn:aws:lambda:eu-central-1:123456789012:function:f"


def _names(specs: list[dict[str, object]]) -> list[str]:
    return [spec["toolSpec"]["name"] for spec in specs]  # type: ignore[index]


def test_tools_are_sorted_by_name() -> None:
    # Given internal and external tools in no particular order
    # When the specs are built
    specs = build_tool_specs(
        ["memory-write", "memory-search"], [SAVE_DRAFT, CRM_LOOKUP], has_skills=True, allow_delegation=False
    )

    # Then they are sorted by name
    assert _names(specs) == ["activate_skill", "crm-lookup", "memory-search", "memory-write", "save-draft"]


def test_schema_key_order_does_not_change_the_bytes() -> None:
    # Given the same external tool with its schema keys written in two orders
    schema_a = {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}
    schema_b = {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "type": "object"}
    tool_a = ExternalTool(name="t", description="d", input_schema=schema_a, function_arn=ARN)
    tool_b = ExternalTool(name="t", description="d", input_schema=schema_b, function_arn=ARN)

    # When both are serialized
    # Then the bytes are identical and the keys sorted
    assert dumps(build_tool_specs([], [tool_a])) == dumps(build_tool_specs([], [tool_b]))
    schema = build_tool_specs([], [tool_a])[0]["toolSpec"]["inputSchema"]["json"]
    assert list(schema) == ["properties", "type"]
    assert list(schema["properties"]) == ["a", "b"]


def test_activate_skill_is_offered_only_when_the_agent_has_skills() -> None:
    # Given / When
    with_skills = build_tool_specs([], has_skills=True)
    without = build_tool_specs([], has_skills=False)

    # Then
    assert (_names(with_skills), _names(without)) == (["activate_skill"], [])


def test_delegation_is_offered_only_when_allowed() -> None:
    # Given delegate-to-agent enabled on the agent
    # When delegation is not allowed (no delegates, or the depth limit is reached) and when it is
    refused = build_tool_specs(["delegate-to-agent"], allow_delegation=False)
    allowed = build_tool_specs(["delegate-to-agent"], allow_delegation=True)

    # Then the tool is offered only in the second case
    assert (_names(refused), _names(allowed)) == ([], ["delegate-to-agent"])


def test_an_unknown_internal_tool_name_is_an_error() -> None:
    # Given / When / Then
    with pytest.raises(ValueError, match="unknown internal tool"):
        build_tool_specs(["memory-teleport"])


def test_internal_specs_cover_every_internal_tool_with_its_required_arguments() -> None:
    # Given the internal tool table
    required = {name: list(d.input_schema["required"]) for name, d in INTERNAL_TOOL_SPECS.items()}

    # Then every internal tool is there with the arguments the spec requires
    assert required == {
        "memory-search": ["query"],
        "memory-write": ["content"],
        "memory-update": ["id", "namespace"],
        "memory-delete": ["id", "namespace"],
        "delegate-to-agent": ["agent", "input"],
        "activate_skill": ["name"],
    }
    assert set(INTERNAL_TOOL_SPECS["memory-search"].input_schema["properties"]) == {
        "query",
        "top_k",
        "namespaces",
    }
    assert "whole sentence" in INTERNAL_TOOL_SPECS["memory-search"].description


def test_tool_specs_have_the_converse_shape() -> None:
    # Given the assembled request of the fixture agent
    tools = build(master_input()).request["toolConfig"]["tools"]

    # When a spec is read
    spec = next(t for t in tools if t.get("toolSpec", {}).get("name") == "crm-lookup")

    # Then it has name, description and a JSON schema, and the whole config is JSON
    assert spec == {
        "toolSpec": {
            "name": "crm-lookup",
            "description": "Look a contact up in the CRM by name.",
            "inputSchema": {"json": json.loads(json.dumps(CRM_LOOKUP.input_schema, sort_keys=True))},
        }
    }


def test_offered_tools_are_reported_for_the_run_engine() -> None:
    # Given / When
    assembled = build(master_input())

    # Then the names the model may call are listed, sorted
    assert assembled.offered_tools == ("activate_skill", "crm-lookup", "delegate-to-agent", "memory-search")
