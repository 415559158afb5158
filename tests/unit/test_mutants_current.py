"""The mutants of ``make mutations`` still apply to the code (a refactor that moves a rule must move its
mutant too, or the rule goes unguarded without anyone noticing): each patch matches exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mutations.check import MUTANTS, PACKAGE, Mutant

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_the_mutant_patch_matches_the_code_exactly_once(mutant: Mutant) -> None:
    source = (ROOT / PACKAGE / mutant.path).read_text()
    assert source.count(mutant.old) == 1, f"{mutant.name}: update tests/mutations/check.py"
