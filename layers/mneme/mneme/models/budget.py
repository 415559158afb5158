"""The budget of a run tree (issue 15.4): what one request — the root run and every sub-agent it starts —
may spend, and what it has spent.

A :class:`Budget` is what an agent's default or a request names (any field may be left out); the root run
resolves it field by field (the lowest of the request's, the agent's and the deployment's values: a budget
only tightens) into :class:`BudgetLimits`, which hold for the whole tree. :class:`TreeUsage` is what the tree
has used so far.
"""

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from mneme.models.common import Number

#: a run waiting for a person may wait 7 days (the state machine's approval timeout); a budget can cover it
MAX_BUDGET_SECONDS = 8 * 24 * 3600


class Budget(BaseModel, defer_build=True):
    """``{max_model_calls?, max_tokens?, max_runs?, max_seconds?}`` for a whole run tree."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_model_calls: Annotated[int, Field(ge=1, le=100_000), Number] | None = None
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000_000), Number] | None = None
    max_runs: (
        Annotated[int, Field(ge=1, le=1_000, description="runs in the tree, the root included"), Number] | None
    ) = None
    max_seconds: Annotated[int, Field(ge=1, le=MAX_BUDGET_SECONDS), Number] | None = None


class BudgetLimits(BaseModel, defer_build=True):
    """Resolved limits: every field set."""

    model_config = ConfigDict(frozen=True)

    max_model_calls: int
    max_tokens: int
    max_runs: int
    max_seconds: int

    @classmethod
    def resolve(cls, deployment: "BudgetLimits", *overrides: Budget | None) -> "BudgetLimits":
        """Each field the lowest of the deployment's and every override that sets it (the request's, the
        agent's): a budget only tightens, never loosens — a request cannot raise what an agent's owner (an
        admin, for a global agent) set, nor anything above the deployment's values (issue 12.10, issue 31.4)."""
        values: dict[str, Any] = {}
        for name, ceiling in deployment.model_dump().items():
            named = [getattr(o, name) for o in overrides if o is not None and getattr(o, name) is not None]
            values[name] = min([ceiling, *named])
        return cls(**values)


class TreeUsage(BaseModel, defer_build=True):
    """What the tree used: runs started (the root included), model calls, tokens (input, output and cache
    tokens alike), delegated runs not yet collected by their parent (``active``), and its start."""

    model_config = ConfigDict(frozen=True)

    runs: int = 1
    model_calls: int = 0
    tokens: int = 0
    active: int = 0
    started_at: datetime

    def seconds(self, now: datetime) -> int:
        return max(0, int((now - self.started_at).total_seconds()))

    def to_api(self, now: datetime) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "model_calls": self.model_calls,
            "tokens": self.tokens,
            "active_children": self.active,
            "seconds": self.seconds(now),
        }
