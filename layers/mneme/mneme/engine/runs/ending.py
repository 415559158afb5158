"""How a step ends, as data: what :mod:`mneme.engine.runs.commit` writes after the step's decisions, and undoes.

* ``turn`` — the chat turn this step stored (first position, message count, chat created with it): taken back
  when the run does not succeed with it (cancelled at the commit, or crashed);
* ``jobs`` — the auto-write jobs of a successful run, planned complete, queued beside or after the commit;
* ``crash`` — the reason, when an unexpected error ended the step.
"""

from __future__ import annotations

from mneme.ports.memory import MemoryWriteJob
from mneme.records import Record, field


class StoredTurn(Record):
    first: int  # the turn's first position in the chat
    count: int  # its messages
    created: bool  # the chat was created with it


class Ending(Record, frozen=False):
    turn: StoredTurn | None = None
    jobs: list[MemoryWriteJob] = field(default_factory=list)
    crash: str | None = None
