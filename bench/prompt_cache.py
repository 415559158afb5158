"""Measure 5 — prompt cache: a scripted 20-turn chat through the real engine (fakes for the ports).

The agent runs on a Claude model id (cache points placed), with a task context of ≥ 2,000 estimated tokens
(characters ÷ 4), 3 skills, memory tools and auto-inject (3 stored memories, so the volatile suffix carries
hits). For each request the *stable prefix* is every block before the current user message in render
order (tools → system → messages), cache-point markers left out. Reported:

* the share of requests (from turn 2) whose prefix starts with the previous request's prefix byte for byte
  (what a prefix cache can reuse);
* from turn 3, the share of input tokens (characters ÷ 4 of the JSON blocks) in front of the last cache point.

Then the fork case of ``bench/prompt_cache_fork.py`` (issue 35.4): the cached share of a forked sub-agent's
input on its first and second call, against a fresh one's.

Run: ``.venv/bin/python bench/prompt_cache.py``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, median, use_repo_paths, verdict

use_repo_paths()
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

TURNS = 20
SENTENCE = "Answer in plain words, cite the memory entries you use and keep a friendly, concise tone. "


def blocks(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The request in render order as (kind, canonical JSON) blocks, with cache-point markers."""
    out: list[tuple[str, str]] = []
    for tool in request.get("toolConfig", {}).get("tools", []):
        out.append(("tool", json.dumps(tool, sort_keys=True, ensure_ascii=False)))
    for block in request.get("system", []):
        out.append(("system", json.dumps(block, sort_keys=True, ensure_ascii=False)))
    for index, message in enumerate(request["messages"]):
        for block in message["content"]:
            out.append((f"msg{index}:{message['role']}", json.dumps(block, sort_keys=True, ensure_ascii=False)))
    return out


def stable_prefix(request: dict[str, Any], user_message: str) -> list[tuple[str, str]]:
    """Blocks before the current user message, cache points left out."""
    out = []
    current = json.dumps({"text": user_message}, sort_keys=True, ensure_ascii=False)
    for kind, block in blocks(request):
        if block == current:
            break
        if '"cachePoint"' not in block:
            out.append((kind, block))
    return out


def cached_share(request: dict[str, Any]) -> float:
    """Characters (÷4 ≈ tokens) of the blocks in front of the last cache point, over all blocks."""
    rendered = blocks(request)
    last = max((i for i, (_k, b) in enumerate(rendered) if '"cachePoint"' in b), default=-1)
    sizes = [len(b) for _k, b in rendered if '"cachePoint"' not in b]
    before = sum(len(b) for _k, b in rendered[: last + 1] if '"cachePoint"' not in b)
    return before / sum(sizes)


def main() -> dict[str, float]:
    from tests.fakes.model import ScriptedModel, text_response
    from tests.functional.engine.conftest import run
    from tests.support.deps import make_world

    from mneme.engine.memory_io.ops import new_document
    from mneme.models.agent import Agent, Skill, Task

    header(f"prompt cache ({TURNS}-turn scripted chat through the engine)")
    counter = iter(range(1, 1000))
    model = ScriptedModel(default=lambda _req: text_response(f"Reply {next(counter)}: " + SENTENCE * 2))
    world = make_world(model)
    config = world.deps.config
    for i in range(3):
        config.put_skill(
            Skill(name=f"skill-{i}", owner="alice", description=f"Skill {i}. " + SENTENCE, content=SENTENCE)
        )
    task_context = "You are Alice's planning assistant. " + SENTENCE * 100
    config.put_agent(
        Agent(
            agent_id="master",
            owner="alice",
            label="Planner",
            model={"provider": "bedrock", "model_id": "anthropic.claude-sonnet-4-5-20250929-v1:0"},
            tools=["memory-search"],
            skills=["skill-0", "skill-1", "skill-2"],
            default_task_id="plan",
        )
    )
    config.put_task(Task(task_id="plan", agent_id="master", owner="alice", name="plan", context_prompt=task_context))
    texts = ["The planning meeting is on Thursdays.", "Alice prefers short answers.", "Budget review is monthly."]
    docs = [
        new_document(f"m{i}", "vector.agent.alice.memory", "alice", t, clock=world.clock) for i, t in enumerate(texts)
    ]
    world.memory.put(list(zip(docs, world.embedder.embed(texts), strict=True)))
    print(f"  stable prefix: task context {len(task_context):,} characters ≈ {len(task_context) // 4:,} tokens")

    chat_id: str | None = None
    prefixes: list[list[tuple[str, str]]] = []
    shares: list[float] = []
    hits = 0
    for turn in range(1, TURNS + 1):
        result = run(world, f"Turn {turn}: what about the planning meeting and the budget review?", chat_id=chat_id)
        chat_id = result.run.chat_id
        world.clock.advance(seconds=90)
        request = model.last_request
        user_message = request["messages"][-1]["content"][-1].get("text") or next(
            b["text"] for b in reversed(request["messages"][-1]["content"]) if "text" in b
        )
        hits += "RELEVANT CONTEXT FROM LONG-TERM MEMORY" in user_message
        prefixes.append(stable_prefix(request, user_message))
        if turn >= 3:
            shares.append(cached_share(request))
    same = [prefixes[i][: len(prefixes[i - 1])] == prefixes[i - 1] for i in range(1, len(prefixes))]
    share_same = sum(same) / len(same)
    first_bad = next((i + 2 for i, ok in enumerate(same) if not ok), None)
    print(f"  model requests: {model.calls}; with memory hits in the volatile suffix: {hits}")
    print(
        f"  requests whose stable prefix extends the previous request's byte for byte: {sum(same)}/{len(same)} "
        f"= {share_same:.0%} → goal 100 %: {verdict(share_same == 1.0)}"
        + (f" (first break at turn {first_bad})" if first_bad else "")
    )
    print(
        f"  input tokens in front of the last cache point, turns 3–{TURNS}: median {median(shares):.1%}, "
        f"min {min(shares):.1%}, max {max(shares):.1%} → goal ≥ 90 %: {verdict(min(shares) >= 0.9)}"
    )
    figures = {"prefix_share": share_same, "cached_min": min(shares), "cached_median": median(shares)}
    from prompt_cache_fork import main as fork_case  # issue 35.4: a forked sub-agent's cached share

    return {**figures, **fork_case()}


def bench(full: bool) -> dict[str, float]:
    return main()


if __name__ == "__main__":
    main()
