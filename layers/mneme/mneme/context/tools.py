"""Tool specs in the Bedrock Converse shape (SPEC §3, §5.4, §6, §8).

Serialization is deterministic so that the tool configuration stays byte-identical between requests:
tools are sorted by name and every JSON schema is canonicalized (keys sorted at every level).
:data:`INTERNAL_TOOL_SPECS` holds the internal tools' schemas; the run engine validates arguments
against the same schemas. They carry the bounds of the HTTP bodies (``mneme.spec_limits``): a model's call gets
no more than a person's request.
"""

from __future__ import annotations

import json
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from mneme.models.agent import CONTEXT_MODE_PATTERN
from mneme.records import Record
from mneme.spec_limits import (
    MAX_DOCUMENT_CHARS,
    MAX_NAMESPACE_CHARS,
    MAX_NAMESPACES_PER_SEARCH,
    MAX_QUERY_CHARS,
    MAX_REFERENCE_CHARS,
    MAX_RUN_INPUT_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TTL_SECONDS,
    MIN_TTL_SECONDS,
    TOP_K_MAX,
    TOP_K_MIN,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from mneme.models import ExternalTool
    from mneme.models.mcp import McpTool

ACTIVATE_SKILL = "activate_skill"
DELEGATE_TO_AGENT = "delegate-to-agent"
UNAVAILABLE_TOOL_DESCRIPTION = (
    "Not available in this conversation: it appears only because earlier messages used it. Do not call it."
)


def canonical_json(value: Any) -> Any:
    """A copy of a JSON value with every object's keys sorted (deterministic serialization)."""
    return json.loads(json.dumps(value, sort_keys=True, ensure_ascii=False))


class ToolDefinition(Record):
    name: str
    description: str
    input_schema: Mapping[str, Any]

    def spec(self) -> dict[str, Any]:
        """The canonical spec, built once (shared and read-only: requests only add entries to their lists)."""
        return _internal_spec(self.name, self.description, json.dumps(dict(self.input_schema)))


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = canonical_json(
        {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    )
    return schema


_NAMESPACE = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NAMESPACE_CHARS,
    "description": "A namespace such as vector.user.<user_id>.memory.",
}
_TAGS = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": MAX_TAG_CHARS},
    "maxItems": MAX_TAGS,
    "description": "Optional tags.",
}
_ID = {"type": "string", "minLength": 1, "maxLength": MAX_REFERENCE_CHARS, "description": "The id of the memory entry."}
_CONTENT_MAX = {"maxLength": MAX_DOCUMENT_CHARS}

_DEFINITIONS = (
    ToolDefinition(
        "memory-search",
        "Search the long-term memory. Write the query as a whole sentence that says what you need to know "
        "(e.g. 'Which programming languages does the user prefer?'), not as a list of keywords: the search "
        "compares meanings. Without namespaces it searches every namespace you may read.",
        _object(
            {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "description": "The question, as a full sentence.",
                },
                "top_k": {
                    "type": "integer",
                    "minimum": TOP_K_MIN,
                    "maximum": TOP_K_MAX,
                    "description": "How many entries to return.",
                },
                "namespaces": {
                    "type": "array",
                    "items": {k: v for k, v in _NAMESPACE.items() if k != "description"},
                    "maxItems": MAX_NAMESPACES_PER_SEARCH,
                    "description": "Optional namespaces to search; empty or missing means all readable ones.",
                },
            },
            ["query"],
        ),
    ),
    ToolDefinition(
        "memory-write",
        "Store a new entry in the long-term memory. Write it as a self-contained statement that will still "
        "make sense later without this conversation.",
        _object(
            {
                "content": {
                    "type": "string",
                    "minLength": 1,
                    **_CONTENT_MAX,
                    "description": "The text to remember.",
                },
                "namespace": {**_NAMESPACE, "description": "Target namespace; the default one when missing."},
                "tags": _TAGS,
                "ttl_seconds": {
                    "type": "integer",
                    "minimum": MIN_TTL_SECONDS,
                    "maximum": MAX_TTL_SECONDS,
                    "description": "Optional lifetime in seconds (60 s to 10 years); the entry expires afterwards.",
                },
                "metadata": {
                    "type": "object",
                    "maxProperties": 16,
                    "description": "Optional extra fields to keep with the entry (mneme's own keys are refused).",
                },
            },
            ["content"],
        ),
    ),
    ToolDefinition(
        "memory-update",
        "Change an existing long-term memory entry (its content, its tags or both).",
        _object(
            {
                "id": _ID,
                "namespace": _NAMESPACE,
                "content": {"type": "string", "minLength": 1, **_CONTENT_MAX, "description": "The new text."},
                "tags": _TAGS,
            },
            ["id", "namespace"],
        ),
    ),
    ToolDefinition(
        "memory-delete",
        "Delete a long-term memory entry (and the entries derived from it).",
        _object({"id": _ID, "namespace": _NAMESPACE}, ["id", "namespace"]),
    ),
    ToolDefinition(
        DELEGATE_TO_AGENT,
        "Hand a request to a specialist agent and get its answer back. The input must be self-contained: "
        "say everything the other agent needs to do the job.",
        _object(
            {
                "agent": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_REFERENCE_CHARS,
                    "description": "The agent's label or id.",
                },
                "input": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_RUN_INPUT_CHARS,
                    "description": "The request for that agent.",
                },
                "task": {"type": "string", "maxLength": 64, "description": "Optional task id of that agent."},
                "context": {
                    "type": "string",
                    "pattern": CONTEXT_MODE_PATTERN,
                    "maxLength": 32,
                    "description": "What that agent sees of this conversation: full (default), isolated "
                    "(only the input), tail:N (the last N messages) or fork (everything, sharing this prompt's "
                    "cache; only where that agent's delegation allows it).",
                },
            },
            ["agent", "input"],
        ),
    ),
    ToolDefinition(
        ACTIVATE_SKILL,
        "Load the full instructions of a skill from the skill catalog. Call it before answering when the "
        "request matches a skill's description, then follow the instructions it returns.",
        _object(
            {"name": {"type": "string", "minLength": 1, "maxLength": 64, "description": "The skill's name."}},
            ["name"],
        ),
    ),
)

#: every internal tool by name (``activate_skill`` included), read-only
INTERNAL_TOOL_SPECS: Mapping[str, ToolDefinition] = MappingProxyType({d.name: d for d in _DEFINITIONS})


@lru_cache(maxsize=64)
def _internal_spec(name: str, description: str, schema_json: str) -> dict[str, Any]:
    return tool_spec(name, description, json.loads(schema_json))


def tool_spec(name: str, description: str, input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """One Converse ``toolSpec`` entry with a canonical schema."""
    schema = canonical_json(dict(input_schema))
    return {"toolSpec": {"name": name, "description": description, "inputSchema": {"json": schema}}}


def unavailable_tool_spec(name: str) -> dict[str, Any]:
    """A stand-in spec for a tool that the history used but that is not offered now."""
    return tool_spec(name, UNAVAILABLE_TOOL_DESCRIPTION, {"type": "object", "properties": {}})


def build_tool_specs(
    enabled: Iterable[str],
    external: Sequence[ExternalTool | McpTool] = (),
    *,
    has_skills: bool = False,
    allow_delegation: bool = False,
) -> list[dict[str, Any]]:
    """The offered tools, sorted by name.

    ``enabled`` are the internal tool names the caller allows (after the memory policy);
    ``delegate-to-agent`` is offered only when it is enabled **and** ``allow_delegation`` (delegates
    listed, depth below the limit); ``activate_skill`` whenever the agent has skills. An external tool (a
    Lambda tool, or an MCP tool named ``<server>__<tool>``) whose name is already taken is ignored (the first
    one wins).
    """
    specs: dict[str, dict[str, Any]] = {}
    for name in enabled:
        definition = INTERNAL_TOOL_SPECS.get(name)
        if definition is None or name == ACTIVATE_SKILL:
            raise ValueError(f"unknown internal tool {name!r}")
        if name != DELEGATE_TO_AGENT or allow_delegation:
            specs[name] = definition.spec()
    if has_skills:
        specs[ACTIVATE_SKILL] = INTERNAL_TOOL_SPECS[ACTIVATE_SKILL].spec()
    for tool in external:
        specs.setdefault(tool.name, tool_spec(tool.name, tool.description, tool.input_schema))
    return [specs[name] for name in sorted(specs)]


def spec_name(spec: dict[str, Any]) -> str:
    name: str = spec["toolSpec"]["name"]
    return name
