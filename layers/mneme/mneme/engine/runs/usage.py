"""The one place where a model call's usage is priced and counted (issue 16): every model call of a run —
the tool loop's calls, the rolling summary, later memory extraction — reports its usage here, and the run's
``usage`` and ``tree_usage`` (with ``cost_usd``) grow by it. A delegated child's tree is added to its
parent when the parent collects the child (``engine.delegate.collect``)."""

from __future__ import annotations

from mneme.engine.runs.session import RunSession
from mneme.models.run import Usage


def charge(session: RunSession, model_id: str, usage: Usage, *, provider: str, first: bool) -> Usage:
    """Price ``usage`` of one call of ``model_id``, add it to the run and its tree, and return it priced.

    ``first``: the call is the first of its kind in the run (the summary call, or the run's own first call), so
    an unpriced model is named once per run, not on every call (the summary's model may differ from the run's)."""
    table = session.deps.settings.price_table
    if first and provider != "offline" and table.price_for(model_id) is None:
        session.recorder.warning(f"no price for model {model_id!r}: its calls count 0 USD (set MNEME_MODEL_PRICES)")
    priced = table.priced(model_id, usage)
    run = session.run
    run.usage = run.usage + priced
    run.tree_usage = run.tree_usage + priced
    return priced
