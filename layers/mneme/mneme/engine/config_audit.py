"""Who changed an agent, task or skill: each save and delete through the API is kept as a revision naming the
caller (``by``), so admins sharing the global resources can tell each other's changes apart."""

from __future__ import annotations

from mneme.engine.deps import Deps
from mneme.models.config_revision import RevisionArgs
from mneme.models.user import Caller


def stamp(deps: Deps, caller: Caller) -> RevisionArgs:
    """The revision a save or delete by ``caller`` keeps: now, by them."""
    return {"revision_at": deps.clock.now(), "revision_by": caller.user_id}
