"""Chats and their messages (SPEC §2): user / assistant / tool call / tool result (and system) turns.

Messages are stored flat, one entry per turn element; Converse packing (``mneme.context``) groups them
into alternating user / assistant turns.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mneme.models.common import Identifier


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    at: datetime | None = None
    run_id: str | None = None


class TextMessage(_Message):
    role: Literal["user", "assistant"]
    text: str


class SystemMessage(_Message):
    role: Literal["system"] = "system"
    text: str


class ToolCallMessage(_Message):
    """The assistant asked for a tool (a Converse ``toolUse`` block)."""

    role: Literal["tool_call"] = "tool_call"
    call_id: str
    tool: str
    arguments: dict[str, Any] = {}


class ToolResultMessage(_Message):
    """The result of one tool call (a Converse ``toolResult`` block in a user turn)."""

    role: Literal["tool_result"] = "tool_result"
    call_id: str
    tool: str = ""
    content: str
    status: Literal["success", "error"] = "success"


ChatMessage = Annotated[
    TextMessage | SystemMessage | ToolCallMessage | ToolResultMessage,
    Field(discriminator="role"),
]


class Chat(BaseModel):
    chat_id: Identifier
    user_id: str
    project_id: Identifier | None = None
    agent_id: str | None = None
    title: str = ""
    created_at: datetime
    updated_at: datetime
    summary: str | None = None
    summary_covers: int = 0  # how many of the oldest messages the summary replaces
    #: the skills activated in the messages the summary covers (None: not recorded, by an older release)
    summary_skills: list[str] | None = None
    messages: list[ChatMessage] = []
    #: the position in the chat of ``messages[0]``: a tail read (``ChatStore.get_chat_tail``) starts later
    first_seq: int = 0

    @property
    def message_count(self) -> int:
        """The messages stored in the chat (a tail read always reaches its end)."""
        return self.first_seq + len(self.messages)
