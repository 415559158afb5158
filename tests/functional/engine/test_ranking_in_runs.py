"""``min_score`` and the relative cutoff on relevance, through runs (SPEC §5.3): the deployment's namespace
rules (``MNEME_NAMESPACE_RULES``) and recency (``MNEME_RECENCY_DECAY``) lift relevance away from the raw
similarity, and the hits the model sees (auto-inject) or the tool returns follow relevance."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from mneme.adapters.models.offline import OfflineModel
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import injected, remember_at
from tests.support.deps import World, make_world

PLAIN = "vector.agent.alice.memory"
FAVOURED = "vector.user.alice.memory"
QUESTION = "What does Alice drink in the morning?"
TEA = "Alice drinks green tea at breakfast"
COFFEE = "Alice has an espresso before work"


def world_with(*, bonus: float = 0.0, recency: float = 0.0, **policy: Any) -> World:
    """Default read namespaces (agent + user), ``min_score`` 0.4 and cutoff 0.7 unless ``policy`` says else."""
    rules = [{"pattern": FAVOURED, "bonus": bonus}] if bonus else []
    world = make_world(OfflineModel(), MNEME_NAMESPACE_RULES=rules, MNEME_RECENCY_DECAY=recency)
    floors = {"retrieval": "vector", "min_score": 0.4, "relative_cutoff": 0.7}  # the formula on raw cosines
    add_agent(
        world, tools=["memory-search"], memory_policy={"tool_read_namespaces": [PLAIN, FAVOURED], **floors, **policy}
    )
    return world


# ------------------------------------------------------------------------------------------- min_score
def test_a_namespace_bonus_lifts_a_hit_over_min_score_into_the_context() -> None:
    # Given a memory of similarity 0.35 (under min_score 0.4) in a namespace with a 0.3 bonus: relevance 0.455
    world = world_with(bonus=0.3)
    remember_at(world, FAVOURED, TEA, query=QUESTION, similarity=0.35)
    # When alice asks
    result = run(world, QUESTION)
    # Then the model sees it
    assert TEA in injected(world, result.run)


def test_recency_lifts_a_fresh_hit_over_min_score_into_the_context() -> None:
    # Given two memories of similarity 0.35, one stored now and one 1000 days ago, and recency decay 0.3
    world = world_with(recency=0.3)
    remember_at(world, PLAIN, TEA, query=QUESTION, similarity=0.35)
    remember_at(world, PLAIN, COFFEE, query=QUESTION, similarity=0.35, age=timedelta(days=1000))
    # When alice asks
    block = injected(world, run(world, QUESTION).run)
    # Then only the fresh one (relevance 0.455; the old one ≈ 0.350) clears min_score
    assert TEA in block and COFFEE not in block


# ------------------------------------------------------------------------------------- relative cutoff
def test_a_namespace_bonus_keeps_a_hit_over_the_relative_cutoff() -> None:
    # Given the best memory at 0.8 and one of similarity 0.5 whose 0.3 bonus makes its relevance 0.65
    world = world_with(bonus=0.3)
    remember_at(world, PLAIN, TEA, query=QUESTION, similarity=0.8)
    remember_at(world, FAVOURED, COFFEE, query=QUESTION, similarity=0.5)
    # When alice asks (cutoff 0.7 × 0.8 = 0.56: over the similarity, under the relevance)
    block = injected(world, run(world, QUESTION).run)
    # Then both are injected
    assert TEA in block and COFFEE in block


def test_the_best_hits_bonus_drops_a_hit_whose_similarity_clears_the_cutoff() -> None:
    # Given the best memory at similarity 0.6 with a 0.5 bonus (relevance 0.9), and a plain one of 0.5
    world = world_with(bonus=0.5)
    remember_at(world, FAVOURED, TEA, query=QUESTION, similarity=0.6)
    remember_at(world, PLAIN, COFFEE, query=QUESTION, similarity=0.5)
    # When alice asks (cutoff 0.7 × 0.9 = 0.63 of relevance; 0.7 × 0.6 = 0.42 of similarity)
    block = injected(world, run(world, QUESTION).run)
    # Then only the best is injected
    assert TEA in block and COFFEE not in block


def test_the_memory_search_tool_applies_the_cutoff_to_relevance() -> None:
    # Given the same two memories as above, and auto-inject off
    world = world_with(bonus=0.3, auto_read_enabled=False)
    remember_at(world, PLAIN, TEA, query=QUESTION, similarity=0.8)
    remember_at(world, FAVOURED, COFFEE, query=QUESTION, similarity=0.5)
    # When the model searches
    output = run(world, f"/search {QUESTION}").run.output or ""
    # Then the tool returns both
    assert TEA in output and COFFEE in output
