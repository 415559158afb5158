"""Measure 4 — core overhead: assembling one request and ranking candidates, time and allocations.

* ``assemble``: a 200-message chat (alternating user / assistant, ~300 characters each), 5 memory hits,
  10 tools (4 internal + activate_skill + 5 external Lambda tools), 3 skills, a task context, a Claude
  model (cache points placed).
* ``rank``: 20 candidates over 3 namespaces with 2 namespace rules, top 5.

Median and p95 over many iterations; allocations with tracemalloc (peak bytes and blocks allocated in one
call). Run: ``.venv/bin/python bench/core_overhead.py [iterations]``.
"""

from __future__ import annotations

import sys
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, median, ms, pct, time_calls, use_repo_paths, verdict

use_repo_paths()

from mneme.context.assembler import ContextInput, assemble  # noqa: E402
from mneme.memory.ranking import rank  # noqa: E402
from mneme.models.agent import ExternalTool, ModelSpec, Skill  # noqa: E402
from mneme.models.chat import TextMessage  # noqa: E402
from mneme.models.memory import MemoryCandidate, MemoryDocument, MemoryHit, NamespaceRule  # noqa: E402
from mneme.models.user import UserSettings  # noqa: E402

NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
MODEL = ModelSpec(provider="bedrock", model_id="anthropic.claude-sonnet-4-5-20250929-v1:0")
SENTENCE = "The planning meeting moved to Thursday afternoons and the agenda now covers the budget review. "


def context_input() -> ContextInput:
    history = [
        TextMessage(role="user" if i % 2 == 0 else "assistant", text=f"Message {i}: " + SENTENCE * 3)
        for i in range(200)
    ]
    hits = [
        MemoryHit(
            id=f"m{i}",
            namespace="vector.agent.alice.memory",
            content=f"Memory {i}: " + SENTENCE,
            similarity=0.9 - i / 100,
            relevance=0.92 - i / 100,
            created_at=NOW - timedelta(days=i),
        )
        for i in range(5)
    ]
    skills = [
        Skill(name=f"skill-{i}", owner="alice", description=f"Skill {i}: " + SENTENCE, content=SENTENCE * 10)
        for i in range(3)
    ]
    external = [
        ExternalTool(
            name=f"lookup-{i}",
            description=f"Lookup tool {i}",
            input_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
            function_arn=f"arn:aws:lambda:us-east-1:123456789012:function:lookup-{i}",
        )
        for i in range(5)
    ]
    return ContextInput(
        model=MODEL,
        now=NOW,
        user_text="What did we decide about the planning meeting?",
        user_id="alice",
        user_settings=UserSettings(name="Alice", language="en", timezone="Europe/Berlin"),
        chat_id="chat-1",
        task_context="You are Alice's assistant. " + SENTENCE * 20,
        agent_label="Assistant",
        skills=skills,
        enabled_tools=["memory-search", "memory-write", "memory-update", "memory-delete"],
        external_tools=external,
        allow_delegation=False,
        history=history,
        memory_hits=hits,
    )


def candidates() -> list[MemoryCandidate]:
    namespaces = ["vector.agent.alice.memory", "vector.user.alice.memory", "vector.global.howto"]
    return [
        MemoryCandidate(
            document=MemoryDocument(
                id=f"d{i:02d}",
                namespace=namespaces[i % 3],
                owner_user_id="alice",
                content=f"Candidate {i % 17}: " + SENTENCE,
                content_hash=f"h{i}",
                created_at=NOW - timedelta(days=i),
                updated_at=NOW - timedelta(days=i),
            ),
            similarity=0.95 - i * 0.02,
        )
        for i in range(20)
    ]


RULES = (NamespaceRule(pattern="vector.user.alice.*", bonus=0.1), NamespaceRule(pattern="vector.global.*", bonus=0.05))


def allocations(fn: Any) -> int:
    """Peak traced bytes (tracemalloc) during one call."""
    fn()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def count_blocks(fn: Any) -> int:
    """Memory blocks allocated during one call (sys.getallocatedblocks delta, before garbage is freed)."""
    import gc

    fn()
    gc.collect()
    gc.disable()
    try:
        return _delta(fn)
    finally:
        gc.enable()


def _delta(fn: Any) -> int:
    start = sys.getallocatedblocks()
    keep = fn()  # keep the result alive: count what it holds too
    grown = sys.getallocatedblocks() - start
    del keep
    return grown


def main(iterations: int = 2000) -> dict[str, float]:
    header(f"core overhead ({iterations} iterations each, after warm-up)")
    ctx = context_input()
    cands = candidates()
    assembled = assemble(ctx)
    size = len(str(assembled.request))
    print(
        f"  request: {len(assembled.request['messages'])} messages, "
        f"{len(assembled.request.get('toolConfig', {}).get('tools', []))} tool entries (incl. cache point), "
        f"{assembled.cache_points} cache points, ~{size:,} characters"
    )

    def do_rank() -> Any:
        return rank(cands, now=NOW, top_k=5, min_score=0.4, relative_cutoff=0.7, rules=RULES)

    print(f"  rank: {len(do_rank())} hits of {len(cands)} candidates")
    results: dict[str, float] = {}
    for name, fn in (
        ("assemble (200 msgs, 5 hits, 10 tools, 3 skills)", lambda: assemble(ctx)),
        ("rank (20)", do_rank),
    ):
        samples = time_calls(fn, iterations)
        peak = allocations(fn)
        blocks = count_blocks(fn)
        med, p95 = median(samples), pct(samples, 95)
        results[name] = med * 1000
        print(
            f"  {name}: median {ms(med)}, p95 {ms(p95)}, peak traced {peak / 1024:.0f} KiB, "
            f"{blocks:,} memory blocks held by the result"
        )
        print(f"    goal < 5 ms median → {verdict(med < 0.005)}")
    return results


def bench(full: bool) -> dict[str, float]:
    return main(2000)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
