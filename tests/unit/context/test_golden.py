"""Golden files: the whole request for a master run and for a sub-agent run.

Regenerate with ``MNEME_REGENERATE_GOLDEN=1 pytest tests/unit/context/test_golden.py`` and review the
diff: the golden files are the specification of the request shape.
"""

from __future__ import annotations

from tests.unit.context.fixtures import build, check_golden, master_input, subagent_input


def test_master_request_matches_the_golden_file() -> None:
    # Given the fixture agent (task context with variables, two skills, three tools), a chat with a tool
    # turn, two memory hits and a German user in Berlin
    ctx = master_input()

    # When the context is assembled
    assembled = build(ctx)

    # Then the request is exactly the committed one
    check_golden("master.json", assembled.request)


def test_subagent_request_matches_the_golden_file() -> None:
    # Given the Email Agent called at depth 1 with the master's conversation and a delegation input
    ctx = subagent_input()

    # When its context is assembled
    assembled = build(ctx)

    # Then the request is exactly the committed one
    check_golden("subagent.json", assembled.request)
