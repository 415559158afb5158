"""The console's memory-policy hints show the defaults the server applies (issue 30.2: they showed the old
0.4 / 0.7 floors long after the defaults changed)."""

from __future__ import annotations

import re
from pathlib import Path

from mneme.memory.embedding_limits import LOCAL_MINILM, TITAN_V2

FORM = Path(__file__).resolve().parents[2] / "console" / "js" / "views" / "policy-form.js"


def _hint(key: str) -> str:
    found = re.search(rf'\["{key}", "{key}", "([^"]+)"', FORM.read_text())
    assert found, key
    return found.group(1)


def test_the_min_score_hint_names_each_embedders_calibrated_hybrid_and_vector_floors() -> None:
    hint = _hint("min_score")
    for limit in (LOCAL_MINILM, TITAN_V2):
        assert f"{limit.floor('hybrid')[0]:g}" in hint and f"{limit.floor('vector')[0]:g}" in hint


def test_the_relative_cutoff_hint_names_the_default_every_embedder_uses() -> None:
    cutoffs = {limit.floor(mode)[1] for limit in (LOCAL_MINILM, TITAN_V2) for mode in ("hybrid", "vector", "keyword")}
    assert cutoffs == {0.0} and "default 0 (off)" in _hint("relative_cutoff")
