"""The auto-write input threshold (SPEC §5.5, §12): ``run_input`` is stored when the raw user input has at
least 80 characters, surrounding whitespace not counted — through runs of the engine."""

from __future__ import annotations

from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World

EIGHTY = "Remember that the staff meeting moves to Thursday at three for the whole quarter"


def sources(world: World) -> list[str]:
    return [str(job.metadata["source"]) for job in world.queue.jobs]


def test_seventy_nine_characters_padded_to_eighty_five_are_not_stored_as_run_input(world: World) -> None:
    # Given an agent that auto-writes
    add_agent(world, memory_policy={"allow_write": True})
    # When the input is 79 characters between three spaces on each side (85 in all)
    text = "   " + EIGHTY[:79] + "   "
    assert len(text) == 85
    result = run(world, text)
    # Then only the answer is queued
    assert result.run.status is RunStatus.SUCCEEDED
    assert sources(world) == ["run_output"]


def test_eighty_characters_between_padding_are_stored_as_run_input_without_it(world: World) -> None:
    # Given an agent that auto-writes
    add_agent(world, memory_policy={"allow_write": True})
    # When the input is exactly 80 characters (inner spaces included) between padding
    assert len(EIGHTY) == 80
    run(world, "  \n" + EIGHTY + " \t ")
    # Then it is queued as run_input, stripped
    assert sources(world) == ["run_input", "run_output"]
    assert world.queue.jobs[0].content == EIGHTY
