"""Chats and their messages (SPEC §2): user / assistant / tool call / tool result (and system) turns.

Messages are stored flat, one entry per turn element; Converse packing (``mneme.context``) groups them
into alternating user / assistant turns.
"""

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from mneme.models.common import Identifier


class _Message(BaseModel, defer_build=True):
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


class ReasoningMessage(_Message):
    """A reasoning block of the model's assistant turn (a Converse ``reasoningContent`` block), kept verbatim:
    ``text`` + ``signature``, or ``redacted`` (the encrypted bytes, base64-encoded so they survive JSON).

    It lives only in a run's own turns during the tool loop, where Bedrock requires it to come back first in
    its assistant turn; it is never stored in a chat and never packed from history (see ``mneme.context.packing``).
    """

    role: Literal["reasoning"] = "reasoning"
    text: str | None = None
    signature: str | None = None
    redacted: str | None = None

    def to_block(self) -> dict[str, Any]:
        if self.redacted is not None:
            return {"reasoningContent": {"redactedContent": self.redacted}}
        text: dict[str, Any] = {"text": self.text or ""}
        if self.signature is not None:
            text["signature"] = self.signature
        return {"reasoningContent": {"reasoningText": text}}

    @classmethod
    def from_block(cls, block: dict[str, Any], **fields: Any) -> Self:
        """From a ``reasoningContent`` block as the model port returns it (redacted content as base64 text)."""
        content = block.get("reasoningContent") or {}
        if "redactedContent" in content:
            return cls(redacted=str(content["redactedContent"]), **fields)
        text = content.get("reasoningText") or {}
        signature = text.get("signature")
        return cls(text=str(text.get("text") or ""), signature=None if signature is None else str(signature), **fields)


ChatMessage = Annotated[
    TextMessage | SystemMessage | ToolCallMessage | ToolResultMessage | ReasoningMessage,
    Field(discriminator="role"),
]


class Chat(BaseModel, defer_build=True):
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
