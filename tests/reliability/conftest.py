"""The reliability tier (issue 7): isolation, bad input, faults, idempotency, local load.

Every test adds to :data:`FIGURES`; the counts are printed at the end of the session (also with ``-q``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.reliability.figures import FIGURES, Figures


@pytest.fixture(scope="session")
def figures() -> Figures:
    return FIGURES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    lines = FIGURES.lines()
    if lines:
        terminalreporter.section("mneme reliability figures")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def quiet_observability(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Thousands of runs: no EMF blob and no INFO line per step (restored after each test)."""
    from mneme import observability

    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    log = observability.logger()
    level = log.log_level
    log.setLevel("WARNING")
    yield
    log.setLevel(level)
