"""The response shapes of SPEC §10 (the keys that must be there; extra keys are allowed)."""

from __future__ import annotations

ERROR_KEYS = {"error", "message"}
RUN_KEYS = {
    "run_id",
    "status",
    "agent_id",
    "task_id",
    "chat_id",
    "depth",
    "parent_run_id",
    "root_run_id",
    "output",
    "error",
    "usage",
    "children",
}
USAGE_KEYS = {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"}  # cost: issue 16
HIT_KEYS = {"id", "namespace", "content", "similarity", "relevance", "created_at", "metadata"}
AUDIT_KEYS = {"at", "action", "namespace", "user_id", "run_id", "root_run_id", "agent_id", "task_id", "depth", "detail"}
