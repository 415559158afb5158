"""The body of ``POST /v1/runs`` (and of the EventBridge trigger): a run request, validated at the edge and
handed to the engine's use cases as it is. In a module of its own, so that the runs router imports it without
the other routes' bodies (mneme.models.requests).

Extra fields are ignored: a ``user_id`` in the body never counts (the user comes from the token).
"""

from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field

from mneme.errors import PayloadTooLarge
from mneme.models.budget import Budget
from mneme.models.common import Flag, Identifier, NotBlank, Number, Slug
from mneme.models.run import ToolApproval
from mneme.spec_limits import MAX_RUN_INPUT_CHARS


class MemoryOverride(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid")

    enabled: Flag | None = None
    top_k: Annotated[int, Field(ge=1, le=20), Number] | None = None


class RunRequest(BaseModel, defer_build=True):
    """``{agent_id, task_id?, chat_id?, project_id?, input, tool_approval?, memory?}``; a ``user_id`` in the
    body is ignored (the user comes from the token)."""

    model_config = ConfigDict(extra="ignore")

    agent_id: Slug
    task_id: Slug | None = None
    chat_id: Identifier | None = None
    project_id: Identifier | None = None
    session_id: Identifier | None = None
    input: Annotated[str, Field(min_length=1), NotBlank]
    tool_approval: ToolApproval | None = None
    memory: MemoryOverride | None = None
    budget: Budget | None = None

    def check_size(self) -> Self:
        """Raise PayloadTooLarge (413) when the input is over the limit of SPEC §12."""
        if len(self.input) > MAX_RUN_INPUT_CHARS:
            raise PayloadTooLarge(
                f"input has {len(self.input)} characters; the limit is {MAX_RUN_INPUT_CHARS}", field="input"
            )
        return self
