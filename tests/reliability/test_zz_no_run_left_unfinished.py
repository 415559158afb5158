"""The tier ends by listing every run it made (issue 12 acceptance): each is final, or waits — as it
legitimately may — for a person's approval. Runs handed off to the state machine that nobody stepped, runs
stuck ``running`` after a crash, children nothing waits for: each would be listed here.

This module runs last (pytest collects the tier's files in name order).
"""

from __future__ import annotations

from mneme.models.run import RunStatus
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER


def test_every_run_of_the_tier_is_final_or_waiting_for_a_person(figures: Figures) -> None:
    # Given every run store the tier's tests registered
    sources = LEDGER.sources()
    # When their unfinished runs are listed
    stuck: list[str] = []
    waiting = 0
    for label, unfinished in sources:
        for run in unfinished():
            if run.status is RunStatus.WAITING_APPROVAL:
                waiting += 1
            else:
                stuck.append(f"{label}: {run.run_id} {run.status.value} (agent {run.agent_id}, depth {run.depth})")
    # Then none is queued or running
    figures.set("runs left unfinished (stores checked)", f"{len(stuck)} ({len(sources)} stores)")
    figures.set("runs waiting for an approval at the end", str(waiting))
    assert sources, "no test registered its run store"
    assert stuck == []
