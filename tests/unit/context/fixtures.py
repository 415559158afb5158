"""Shared builders for the context tests: a master agent, a sub-agent and a chat with a tool turn."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mneme.context import AssembledContext, ContextInput, assemble
from mneme.models import (
    ChatMessage,
    ExternalTool,
    MemoryHit,
    ModelSpec,
    Skill,
    TextMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserSettings,
)
from mneme.models.agent import InferenceSettings
from mneme.records import replace

GOLDEN = Path(__file__).parent / "golden"
NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
CLAUDE = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "eu.amazon.nova-pro-v1:0"
USER = UserSettings(name="Anna Schmidt", email="anna@example.com", language="de", timezone="Europe/Berlin")

SKILLS = (
    Skill(
        name="trip-planning",
        description="Plans trips: routes, bookings, packing lists.",
        content="Ask for dates first.",
    ),
    Skill(
        name="email-style",
        description="Writes emails in the user's house style.",
        when_to_use="Use it for every email draft.",
        content="Short sentences. Greeting by first name.",
    ),
)
CRM_LOOKUP = ExternalTool(
    name="crm-lookup",
    description="Look a contact up in the CRM by name.",
    input_schema={
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string", "description": "The contact's name."}},
    },
    function_arn="arn:aws:lambda:eu-central-1:123456789012:function:crm-lookup",
)
SAVE_DRAFT = ExternalTool(
    name="save-draft",
    description="Save an email draft in the user's mailbox.",
    input_schema={
        "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}},
        "type": "object",
        "required": ["to", "subject", "body"],
    },
    function_arn="arn:aws:lambda:eu-central-1:123456789012:function:save-draft",
)

HISTORY: tuple[ChatMessage, ...] = (
    TextMessage(role="user", text="Please find what I told you about my trip to Lisbon."),
    ToolCallMessage(
        call_id="tooluse_search_1",
        tool="memory-search",
        arguments={"top_k": 3, "query": "What did the user say about the trip to Lisbon?"},
    ),
    ToolResultMessage(
        call_id="tooluse_search_1", tool="memory-search", content="1 entry: The user plans Lisbon in March."
    ),
    TextMessage(role="assistant", text="You plan a trip to Lisbon in March."),
    TextMessage(role="user", text="Great, book nothing yet. What should I pack?"),
    TextMessage(role="assistant", text="Light clothes and a rain jacket."),
)

HITS = (
    MemoryHit(
        id="m-1",
        namespace="vector.user.alice.preferences",
        content="Anna prefers short emails without small talk.",
        similarity=0.82,
        relevance=0.9,
        created_at=datetime(2026, 10, 12, 23, 30, tzinfo=UTC),  # already Oct 13 in Berlin
    ),
    MemoryHit(
        id="m-2",
        namespace="vector.agent.alice.memory",
        content="Ben is Anna's colleague from the Porto office.",
        similarity=0.71,
        relevance=0.74,
        created_at=datetime(2026, 6, 2, 8, 0, tzinfo=UTC),
    ),
)


def master_input(**changes: Any) -> ContextInput:
    ctx = ContextInput(
        model=ModelSpec(
            provider="bedrock",
            model_id=CLAUDE,
            inference=InferenceSettings(max_tokens=2048, temperature=0.2),
        ),
        now=NOW,
        user_text="Draft an email to Ben about the trip.",
        user_id="alice",
        user_settings=USER,
        chat_id="chat-42",
        project_id=None,
        task_context="You are the personal assistant of ${user_name}.\nThis chat is ${chat_id}.",
        depth=0,
        agent_label="Assistant",
        skills=SKILLS,
        enabled_tools=("memory-search", "delegate-to-agent"),
        external_tools=(CRM_LOOKUP,),
        allow_delegation=True,
        history=HISTORY,
        memory_hits=HITS,
    )
    return replace(ctx, **changes)


def subagent_input(**changes: Any) -> ContextInput:
    """The Email Agent at depth 1: the master's conversation, whose last turn asked for the delegation."""
    parent_turn: tuple[ChatMessage, ...] = (
        TextMessage(role="user", text="Draft an email to Ben about the trip."),
        ToolCallMessage(
            call_id="tooluse_delegate_1",
            tool="delegate-to-agent",
            arguments={"agent": "Email Agent", "input": "Write a short email to Ben about Lisbon."},
        ),
    )
    ctx = ContextInput(
        model=ModelSpec(provider="bedrock", model_id=CLAUDE),
        now=NOW,
        user_text="Write a short email to Ben: the Lisbon trip is planned for March; ask if he joins.",
        user_id="alice",
        user_settings=USER,
        chat_id="chat-42",
        task_context="You write clear, friendly emails for ${user_name}.",
        depth=1,
        agent_label="Email Agent",
        skills=(SKILLS[1],),
        enabled_tools=(),
        external_tools=(SAVE_DRAFT,),
        allow_delegation=False,
        history=(*HISTORY, *parent_turn),
        memory_hits=(HITS[0],),
    )
    return replace(ctx, **changes)


def build(ctx: ContextInput) -> AssembledContext:
    return assemble(ctx)


def dumps(value: Any) -> str:
    """The bytes a request is sent / recorded with (insertion order, no re-sorting)."""
    return json.dumps(value, ensure_ascii=False)


def strip_cache_points(value: Any) -> Any:
    if isinstance(value, list):
        return [strip_cache_points(item) for item in value if not (isinstance(item, dict) and "cachePoint" in item)]
    if isinstance(value, dict):
        return {key: strip_cache_points(item) for key, item in value.items()}
    return value


def check_golden(name: str, request: dict[str, Any]) -> None:
    """Compare with ``golden/<name>``; ``MNEME_REGENERATE_GOLDEN=1`` rewrites the file first."""
    path = GOLDEN / name
    if os.environ.get("MNEME_REGENERATE_GOLDEN") == "1":
        path.write_text(json.dumps(request, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert request == json.loads(path.read_text(encoding="utf-8"))
