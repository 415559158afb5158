"""Source text for the fresh-interpreter probes that look at mneme's pydantic models (defined, built)."""

from __future__ import annotations

#: defines ``mneme_models()``: every pydantic model class defined in a ``mneme.`` module, by dotted name
MNEME_MODELS = """
import pydantic


def mneme_models():
    seen, stack = set(), list(pydantic.BaseModel.__subclasses__())
    while stack:
        model = stack.pop()
        if model not in seen:
            seen.add(model)
            stack.extend(model.__subclasses__())
    return {f"{m.__module__}.{m.__qualname__}": m for m in seen if m.__module__.startswith("mneme.")}
"""
