"""One time budget per step (issues 11.5, 12.9): what a blocking call (a model call, a tool call, a
delegation) may still take, checked before each one.

* **Fast path** (inside the API request): blocking calls end within ``fast_path_budget_seconds`` (20 s) of
  the request; the commit and the hand-off get :data:`~mneme.spec_limits.HAND_OFF_RESERVE_SECONDS` after that, so
  ``POST /v1/runs`` answers within :data:`~mneme.spec_limits.API_ANSWER_SECONDS` (25 s) with a run id, under API
  Gateway's 29 s. A model call gets the time that is left as its timeout (less than 3 s left: the run is
  handed off instead); a tool call gets the time that is left (less than 3 s: handed off).
* **State machine step** (one Lambda invocation of at most the function timeout, 120 s): a model call is
  started only when its whole window fits — ``function timeout - STEP_WORK_SECONDS - STEP_RESERVE_SECONDS``
  (90 s) — otherwise the step ends with ``continue`` and the next step (a fresh invocation) makes it. The
  model's read timeout is that window and a read timeout is not retried (a long generation is billed once).
"""

from __future__ import annotations

from collections.abc import Callable

from mneme.records import Record
from mneme.settings import Settings
from mneme.spec_limits import (
    MAX_EXTERNAL_TOOL_SECONDS,
    MIN_MODEL_CALL_SECONDS,
    MIN_TOOL_CALL_SECONDS,
    STEP_RESERVE_SECONDS,
    STEP_WORK_SECONDS,
)


def step_model_window(settings: Settings) -> float:
    """The read timeout of a model call inside a state machine step (90 s with a 120 s function)."""
    return settings.run_function_timeout_seconds - STEP_WORK_SECONDS - STEP_RESERVE_SECONDS


class TimeBudget(Record):
    """The time left for blocking calls in this step, on the step's monotonic clock."""

    monotonic: Callable[[], float]
    deadline: float  # blocking calls must be over by then
    fast_path: bool
    model_window: float  # the longest model call this path makes

    @classmethod
    def fast(cls, settings: Settings, monotonic: Callable[[], float]) -> TimeBudget:
        start = monotonic()
        return cls(monotonic, start + settings.fast_path_budget_seconds, True, settings.fast_path_budget_seconds)

    @classmethod
    def step(cls, settings: Settings, monotonic: Callable[[], float]) -> TimeBudget:
        start = monotonic()
        deadline = start + settings.run_function_timeout_seconds - STEP_RESERVE_SECONDS
        return cls(monotonic, deadline, False, step_model_window(settings))

    def remaining(self) -> float:
        return self.deadline - self.monotonic()

    def model_timeout(self) -> float | None:
        """The timeout to give the next model call, or None when there is no time for one (the fast path
        hands the run off; a step ends with ``continue``)."""
        left = self.remaining()
        if self.fast_path:
            return min(left, self.model_window) if left >= MIN_MODEL_CALL_SECONDS else None
        return self.model_window if left >= self.model_window else None

    def tool_timeout(self) -> float | None:
        """The timeout to give the next tool call, or None when there is no time for one."""
        left = self.remaining() if self.fast_path else min(self.remaining(), MAX_EXTERNAL_TOOL_SECONDS)
        return left if left >= MIN_TOOL_CALL_SECONDS else None
