"""The auto-write input threshold as a client meets it: ``POST /v1/runs`` with a padded input (SPEC §5.5)."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import start
from tests.support.deps import World

EIGHTY = "Remember that the staff meeting moves to Thursday at three for the whole quarter"


@pytest.fixture(autouse=True)
def writing_agent(world: World) -> None:
    add_agent(world, memory_policy={"allow_write": True})


def test_a_padded_seventy_nine_character_input_is_not_stored(api: Api, world: World) -> None:
    start(api, "   " + EIGHTY[:79] + "   ")
    assert [job.metadata["source"] for job in world.queue.jobs] == ["run_output"]


def test_a_padded_eighty_character_input_is_stored_stripped(api: Api, world: World) -> None:
    start(api, "   " + EIGHTY + "   ")
    first = world.queue.jobs[0]
    assert (first.metadata["source"], first.content) == ("run_input", EIGHTY)
