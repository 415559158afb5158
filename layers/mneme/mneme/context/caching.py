"""The model capability table (SPEC §3): prompt caching, extended thinking, and the ``cachePoint`` block.

Bedrock renders a request as tools → system → messages; a cache point caches everything before it.
Only some models accept cache points, and Amazon Nova does not cache tool definitions. Everything not
known to support caching gets none: a cache point on a model without support is a validation error.

Extended thinking with a token budget (``additionalModelRequestFields.thinking``, issue 16) exists on Claude
3.7 Sonnet and the Claude 4 family up to 4.6 (Sonnet 4 / 4.5 / 4.6, Opus 4 / 4.1 / 4.5 / 4.6, Haiku 4.5),
per the Bedrock user guide ``claude-messages-extended-thinking``; Claude 4.7 and later reject the budgeted
form, and no other provider takes it, so an agent may enable it only where :func:`supports_reasoning` says so.
"""

from __future__ import annotations

import re
from typing import Any

from mneme.models.agent import base_model_id
from mneme.records import Record
from mneme.spec_limits import MAX_CACHE_POINTS


class CacheCapabilities(Record):
    system: bool = False
    messages: bool = False
    tools: bool = False

    @property
    def any(self) -> bool:
        return self.system or self.messages or self.tools


NO_CACHING = CacheCapabilities()
_CLAUDE = CacheCapabilities(system=True, messages=True, tools=True)
_NOVA = CacheCapabilities(system=True, messages=True, tools=False)

# Claude models released before prompt caching existed on Bedrock
_OLD_CLAUDE = (
    "anthropic.claude-v",
    "anthropic.claude-instant",
    "anthropic.claude-3-haiku",
    "anthropic.claude-3-sonnet",
    "anthropic.claude-3-opus",
    "anthropic.claude-3-5-sonnet-20240620",
)
_TABLE: tuple[tuple[str, CacheCapabilities], ...] = (
    ("anthropic.claude-", _CLAUDE),
    ("amazon.nova-", _NOVA),
)


def cache_capabilities(provider: str, model_id: str) -> CacheCapabilities:
    """Which parts of a request may carry cache points for this model."""
    if provider != "bedrock":
        return NO_CACHING
    base = base_model_id(model_id)
    if base.startswith(_OLD_CLAUDE):
        return NO_CACHING
    for prefix, capabilities in _TABLE:
        if base.startswith(prefix):
            return capabilities
    return NO_CACHING


_REASONING = re.compile(
    r"^anthropic\.claude-(?:3-7-sonnet|sonnet-4(?:-[56])?|opus-4(?:-[156])?|haiku-4-5)(?:-\d{8})?(?:-v\d+(?::\d+)?)?$"
)


def supports_reasoning(provider: str, model_id: str) -> bool:
    """Whether the model takes extended thinking with ``budget_tokens`` (Bedrock Claude 3.7 / 4.x ≤ 4.6)."""
    return provider == "bedrock" and bool(_REASONING.match(base_model_id(model_id)))


def cache_point() -> dict[str, Any]:
    """A fresh ``cachePoint`` block (a new dict each time, so callers may not alias one)."""
    return {"cachePoint": {"type": "default"}}


def is_cache_point(block: dict[str, Any]) -> bool:
    return "cachePoint" in block


def count_cache_points(request: dict[str, Any]) -> int:
    """How many cache points a Converse request carries (tools, system and message content)."""
    tools = request.get("toolConfig", {}).get("tools", [])
    blocks = [*tools, *request.get("system", [])]
    blocks += [block for message in request.get("messages", []) for block in message["content"]]
    return sum(1 for block in blocks if is_cache_point(block))


__all__ = [
    "MAX_CACHE_POINTS",
    "NO_CACHING",
    "CacheCapabilities",
    "base_model_id",
    "cache_capabilities",
    "cache_point",
    "count_cache_points",
    "supports_reasoning",
]
