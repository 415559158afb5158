"""Ready-made scripted models for engine tests."""

from __future__ import annotations

from mneme.errors import ModelRequestRejected
from tests.fakes.model import ScriptedModel


def failing_model() -> ScriptedModel:
    """A model whose every call is rejected (not retryable)."""
    return ScriptedModel([], default=ModelRequestRejected("the model refused the request"))
