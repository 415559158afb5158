"""The fixed limits and defaults of SPEC §12 in one place."""

from typing import Final

MAX_DELEGATION_DEPTH: Final = 5
MAX_TOOL_CALLS_PER_RUN: Final = 50
MAX_IDENTICAL_TOOL_CALLS: Final = 3  # a call repeated more than this aborts the loop
TOP_K_MIN: Final = 1
TOP_K_MAX: Final = 20
MAX_RUN_INPUT_CHARS: Final = 100_000
SUMMARY_TRIGGER_TOKENS: Final = 8_000
SUMMARY_TRIGGER_MESSAGES: Final = 40
SUMMARY_MAX_CHARS: Final = 8_000
CHARS_PER_TOKEN: Final = 4
SKILL_REATTACH_TOKENS_EACH: Final = 5_000
SKILL_REATTACH_TOKENS_TOTAL: Final = 25_000
FAST_PATH_BUDGET_SECONDS: Final = 20.0
AUTO_WRITE_MIN_INPUT_CHARS: Final = 80
MAX_CACHE_POINTS: Final = 4
SKILL_DESCRIPTION_MAX: Final = 1024

# HTTP responses: a synchronous Lambda response (the whole JSON document API Gateway receives) is at most
# 6 MB; a page of a GET response stops before its items would take more than MAX_RESPONSE_BYTES of it, which
# leaves the rest for the envelope, the headers and the page's other fields (engine/views/pages.py).
LAMBDA_RESPONSE_BYTES: Final = 6 * 1024 * 1024
MAX_RESPONSE_BYTES: Final = 5_000_000
PAGE_LIMIT_DEFAULT: Final = 100
PAGE_LIMIT_MAX: Final = 1000

# MCP servers of an agent (issue 20)
MCP_MAX_SERVERS: Final = 8
MCP_TIMEOUT_DEFAULT_SECONDS: Final = 10.0
MCP_TIMEOUT_MAX_SECONDS: Final = 30.0  # a call must end well inside the API's 29 s and the fast-path budget
MCP_TOOLS_TTL_SECONDS: Final = 60.0  # discovered tool lists are reused per container for this long
MCP_MAX_TOOLS_PER_SERVER: Final = 64
MCP_MAX_TOOL_CHARS_PER_RUN: Final = 200_000  # all MCP tool specs of one run (prompt and checkpoint size)
MCP_MAX_SCHEMA_CHARS: Final = 16_000  # a larger input schema is not offered (it would crowd the prompt)
MCP_MAX_DESCRIPTION_CHARS: Final = 2_000  # longer descriptions are cut
MCP_RESULT_MAX_CHARS: Final = 20_000  # what the model sees of one result; the rest is cut with a note
MCP_MAX_RESPONSE_BYTES: Final = 4 * 1024 * 1024  # one HTTP response of an MCP server (hostile servers)
#: one answer of an openai-compatible endpoint: a 128k-token answer is ~0.5 MB (~3 MB as \u-escaped JSON)
MODEL_REPLY_MAX_BYTES: Final = 8 * 1024 * 1024
TOOL_NAME_PATTERN: Final = r"^[A-Za-z0-9_-]{1,64}$"  # Bedrock Converse's toolSpec.name

# bounds shared by the HTTP bodies (models/requests.py) and the internal tools' input schemas (context/tools.py)
MAX_QUERY_CHARS: Final = 20_000
#: a document or run input is stored as at most this many characters (in chunks of the embedding model's
#: input size, mneme.memory.chunking); a longer one is a 413 naming the limit
MAX_DOCUMENT_CHARS: Final = 200_000
#: what a document body may carry at all (above MAX_DOCUMENT_CHARS it is a 413, not a validation error)
DOCUMENT_BODY_CHARS: Final = 1_000_000
MAX_NAMESPACE_CHARS: Final = 512
MAX_NAMESPACES_PER_SEARCH: Final = 32
MAX_TAGS: Final = 32
MAX_TAG_CHARS: Final = 64
MIN_TTL_SECONDS: Final = 60
MAX_TTL_SECONDS: Final = 10 * 365 * 24 * 3600  # ten years
MAX_REFERENCE_CHARS: Final = 128  # ids and labels a tool call names (memory entry, agent, skill, task)

# ---- the time budget (issues 11.5, 12.9): all time limits of a run derive from these (engine/runs/time_budget.py) ----
#: API Gateway HTTP API stops waiting for the integration after this (template: TimeoutInMillis 29000)
API_INTEGRATION_TIMEOUT_SECONDS: Final = 29.0
#: POST /v1/runs answers within this, always with a run id (the fast path's work + the hand-off reserve)
API_ANSWER_SECONDS: Final = 25.0
#: after the fast path's last blocking call: the step's commit and StartExecution (their clients' timeouts)
HAND_OFF_RESERVE_SECONDS: Final = 3.0
#: the run function's timeout (template: RunFunction Timeout, MNEME_RUN_FUNCTION_TIMEOUT)
RUN_FUNCTION_TIMEOUT_SECONDS: Final = 120.0
#: a state machine step starts a model call only within its first seconds, so the call's whole read
#: timeout (function timeout - this - the step reserve) still fits the function timeout
STEP_WORK_SECONDS: Final = 20.0
#: after a step's last blocking call: its commit, and the retries of a transient store error
STEP_RESERVE_SECONDS: Final = 10.0
#: the fast path does not start a model call with less time left than this (it hands off instead)
MIN_MODEL_CALL_SECONDS: Final = 3.0
#: ... nor a tool call (an external Lambda tool gets the time that is left as its timeout: connect + read)
MIN_TOOL_CALL_SECONDS: Final = 3.0
#: the longest an external (Lambda) tool may take inside a state machine step
MAX_EXTERNAL_TOOL_SECONDS: Final = 60.0
#: the rolling summary's model call (a failed summary leaves the history as it is)
SUMMARY_TIMEOUT_SECONDS: Final = 8.0
#: Bedrock output speed assumed when an agent's max_tokens is checked against a step's model window
#: (tokens per second): below the fast rate it can never finish, below the slow rate it may not
OUTPUT_TOKENS_PER_SECOND_FAST: Final = 120
OUTPUT_TOKENS_PER_SECOND_SLOW: Final = 40
#: a run not final whose lease (its last step's end + the function timeout + this) is over, and that no
#: execution runs, is failed as interrupted by the sweeper
LEASE_GRACE_SECONDS: Final = 60.0
