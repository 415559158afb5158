"""Domain models (pydantic v2). Bad input fails here, at the edge, with a message naming the field."""

from mneme.models.agent import Agent, ExternalTool, ModelSpec, Skill, Task
from mneme.models.audit import AuditAction, AuditRecord
from mneme.models.chat import (
    Chat,
    ChatMessage,
    ReasoningMessage,
    SystemMessage,
    TextMessage,
    ToolCallMessage,
    ToolResultMessage,
)
from mneme.models.memory import MemoryCandidate, MemoryDocument, MemoryHit, NamespaceRule
from mneme.models.policy import MemoryPolicy, ResolvedPolicy
from mneme.models.run import Run, RunEvent, RunStatus, ToolApproval, Usage
from mneme.models.user import Caller, UserSettings

__all__ = [
    "Agent",
    "AuditAction",
    "AuditRecord",
    "Caller",
    "Chat",
    "ChatMessage",
    "ExternalTool",
    "MemoryCandidate",
    "MemoryDocument",
    "MemoryHit",
    "MemoryPolicy",
    "ModelSpec",
    "NamespaceRule",
    "ReasoningMessage",
    "ResolvedPolicy",
    "Run",
    "RunEvent",
    "RunStatus",
    "Skill",
    "SystemMessage",
    "Task",
    "TextMessage",
    "ToolApproval",
    "ToolCallMessage",
    "ToolResultMessage",
    "Usage",
    "UserSettings",
]
