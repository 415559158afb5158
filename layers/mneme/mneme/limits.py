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
# leaves the rest for the envelope, the headers and the page's other fields (engine/pages.py).
LAMBDA_RESPONSE_BYTES: Final = 6 * 1024 * 1024
MAX_RESPONSE_BYTES: Final = 5_000_000
PAGE_LIMIT_DEFAULT: Final = 100
PAGE_LIMIT_MAX: Final = 1000
