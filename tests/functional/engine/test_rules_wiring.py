"""Namespace rules fully wired (issue 13.5): templates in rule patterns resolve per run, a rule's instruction
reaches the model once per rule group, and rules and recency decay are set in the agent's memory policy."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import injected, remember_at
from tests.support.deps import World, make_world

QUESTION = "What does Alice drink in the morning?"
TEA = "Alice drinks green tea at breakfast"
PREFS = "vector.user.alice.preferences"


def _world(**policy: Any) -> World:
    world = make_world(OfflineModel())
    base = {"read_namespaces": ["vector.user.${user_id}.*"], "retrieval": "vector", "min_score": 0.4}
    add_agent(world, memory_policy={**base, **policy})
    return world


def test_a_template_rule_in_the_policy_lifts_a_hit_over_min_score() -> None:
    world = _world(namespace_rules=[{"pattern": "vector.user.${user_id}.preferences", "bonus": 0.3}])
    remember_at(world, PREFS, TEA, query=QUESTION, similarity=0.35)  # 0.35 × 1.3 ≥ 0.4
    assert TEA in injected(world, run(world, QUESTION).run)


def test_a_rule_for_another_users_namespace_does_not_match() -> None:
    world = _world(namespace_rules=[{"pattern": "vector.user.bob.preferences", "bonus": 0.3}])
    remember_at(world, PREFS, TEA, query=QUESTION, similarity=0.35)
    assert injected(world, run(world, QUESTION).run) == ""


def test_a_rules_instruction_reaches_the_model_once_per_rule_group() -> None:
    note = "Entries from the preferences namespace are the user's stated preferences: follow them."
    rules = [
        {"pattern": "vector.user.${user_id}.preferences", "bonus": 0.0, "instruction": note},
        {"pattern": "vector.user.${user_id}.*", "bonus": 0.0, "instruction": note},
    ]
    world = _world(namespace_rules=rules)
    remember_at(world, PREFS, TEA, query=QUESTION, similarity=0.8)
    remember_at(world, PREFS, "Alice takes her tea without sugar", query=QUESTION, similarity=0.7)
    block = injected(world, run(world, QUESTION).run)
    assert block.count(note) == 1


def test_no_instruction_without_a_matching_hit() -> None:
    note = "Global manuals are authoritative."
    world = _world(namespace_rules=[{"pattern": "vector.global.*", "instruction": note}])
    remember_at(world, PREFS, TEA, query=QUESTION, similarity=0.8)
    block = injected(world, run(world, QUESTION).run)
    assert TEA in block and note not in block


def test_recency_decay_in_the_policy_overrides_the_deployment() -> None:
    world = _world(recency_decay=0.3)  # the deployment's is 0.05
    remember_at(world, PREFS, TEA, query=QUESTION, similarity=0.35)  # fresh: 0.35 × 1.3 = 0.455
    assert TEA in injected(world, run(world, QUESTION).run)


def test_an_invalid_rule_pattern_is_refused_when_saved() -> None:
    world = make_world(OfflineModel())
    with pytest.raises(ValueError, match=r"vector\.\*\.x"):
        add_agent(world, memory_policy={"namespace_rules": [{"pattern": "vector.*.x", "bonus": 1}]})
