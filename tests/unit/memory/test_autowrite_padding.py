"""The auto-write input threshold counts the input without its surrounding whitespace (SPEC §5.5)."""

from __future__ import annotations

from mneme.memory.autowrite import plan_auto_write
from mneme.memory.policy import MemoryScope
from mneme.models.policy import ResolvedPolicy
from mneme.models.run import RunStatus
from mneme.ports.memory import MemoryWriteJob

EIGHTY = "Remember that the staff meeting moves to Thursday at three for the whole quarter"


def run_inputs(user_input: str) -> list[MemoryWriteJob]:
    plan = plan_auto_write(
        ResolvedPolicy(allow_write=True),
        MemoryScope(user_id="alice"),
        run_id="r1",
        status=RunStatus.SUCCEEDED,
        user_input=user_input,
        output="answer",
    )
    return [job for job in plan.jobs if job.metadata["source"] == "run_input"]


def test_padding_does_not_lift_seventy_nine_characters_over_the_threshold() -> None:
    assert run_inputs("   " + EIGHTY[:79] + "   ") == []


def test_eighty_characters_with_inner_spaces_are_stored_stripped_of_their_padding() -> None:
    jobs = run_inputs("\n  " + EIGHTY + "   ")
    assert [job.content for job in jobs] == [EIGHTY]
