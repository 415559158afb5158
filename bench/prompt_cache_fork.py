"""Measure 5b — prompt cache of a forked sub-agent (issue 35.4), against a fresh one.

A master on a Claude model id (task context ≥ 2,000 estimated tokens, memory tools) chats for 6 turns; on the
7th it delegates to a researcher agent (its own short task context, ``memory-search``), whose ``delegates``
entry says ``context: "fork"``, then again with the default (fresh) context. Each child makes two model
calls (a search, then its answer).

The provider's prompt cache is simulated over the recorded requests, in the order they were sent, as
Anthropic's cache on Bedrock behaves: a request writes an entry for the prefix in front of each of its cache
points; at each of its cache points it reads the longest prefix already written that ends at that point or
up to 20 blocks before it. "Cached share" = characters of the blocks read from the cache over all the
request's characters (blocks as canonical JSON, cache-point markers left out; characters ÷ 4 ≈ tokens).
There is no cache accounting in the offline model; this simulation is the measurement.

Run: ``.venv/bin/python bench/prompt_cache_fork.py`` (also printed by ``bench/prompt_cache.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, use_repo_paths, verdict

use_repo_paths()
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

LOOKBACK = 20  # blocks a cache point looks back for an earlier entry
CHAT_TURNS = 6
SENTENCE = "Answer in plain words, cite the memory entries you use and keep a friendly, concise tone. "
CLAUDE = {"provider": "bedrock", "model_id": "anthropic.claude-sonnet-4-5-20250929-v1:0"}


def content_and_points(request: dict[str, Any]) -> tuple[list[str], list[int]]:
    """Blocks in render order (tools → system → messages, each message's role marked) without cache-point
    markers, and for each cache point how many blocks stand in front of it."""
    raw = [*request.get("toolConfig", {}).get("tools", []), *request.get("system", [])]
    rendered = [json.dumps(b, sort_keys=True, ensure_ascii=False) for b in raw]
    for message in request["messages"]:
        rendered.append(json.dumps({"role": message["role"]}))
        rendered += [json.dumps(b, sort_keys=True, ensure_ascii=False) for b in message["content"]]
    blocks: list[str] = []
    points: list[int] = []
    for block in rendered:
        if '"cachePoint"' in block:
            points.append(len(blocks))
        else:
            blocks.append(block)
    return blocks, points


class PrefixCache:
    """Entries keyed by the hash of a block prefix (one model, one cache)."""

    def __init__(self) -> None:
        self._entries: set[str] = set()

    @staticmethod
    def _key(blocks: list[str], end: int) -> str:
        return hashlib.sha256("\x00".join(blocks[:end]).encode()).hexdigest()

    def send(self, request: dict[str, Any]) -> float:
        """Record one request: the share of its characters read from the cache; then its entries are written."""
        blocks, points = content_and_points(request)
        read = 0
        for point in points:
            for end in range(point, max(0, point - LOOKBACK) - 1, -1):
                if end > read and self._key(blocks, end) in self._entries:
                    read = end
                    break
        for point in points:
            self._entries.add(self._key(blocks, point))
        return sum(len(b) for b in blocks[:read]) / sum(len(b) for b in blocks)


def main() -> dict[str, float]:
    from tests.fakes.model import ScriptedModel, text_response, tool_use_response
    from tests.functional.engine.conftest import add_agent, add_task, run
    from tests.support.deps import make_world

    from mneme.engine.runs import service
    from mneme.models.agent import DelegateEntry

    header(f"prompt cache of a forked sub-agent ({CHAT_TURNS}-turn chat, then one delegation)")
    results: dict[str, float] = {}
    for context in ("fork", "full"):
        chat = [text_response(f"Reply {i}: " + SENTENCE * 2) for i in range(CHAT_TURNS)]
        delegate = tool_use_response(("delegate-to-agent", {"agent": "researcher", "input": "Find the budget dates."}))
        search = tool_use_response(("memory-search", {"query": "budget review dates"}))
        model = ScriptedModel([*chat, delegate, search, text_response("The review is monthly.")])
        world = make_world(model)
        master = add_agent(
            world,
            "master",
            model=CLAUDE,
            tools=["delegate-to-agent", "memory-search"],
            delegates=[DelegateEntry(agent="researcher", context=context)],
            default_task_id="plan",
        )
        add_task(world, master, "plan", context_prompt="You are Alice's planning assistant. " + SENTENCE * 100)
        researcher = add_agent(world, "researcher", model=CLAUDE, tools=["memory-search"], default_task_id="dig")
        add_task(world, researcher, "dig", context_prompt="You are the researcher. Answer with dates only.")
        chat_id: str | None = None
        for turn in range(CHAT_TURNS):
            chat_id = run(world, f"Turn {turn}: what about the planning meeting?", chat_id=chat_id).run.chat_id
        parent = run(world, "Please ask the researcher for the budget dates.", chat_id=chat_id).run
        service.step(world.deps, parent.children[0])
        cache = PrefixCache()
        for request in model.requests[: CHAT_TURNS + 1]:  # the master's requests, in order
            cache.send(request)
        child = world.deps.runs.list_requests(parent.children[0])
        first, second = cache.send(child[0]), cache.send(child[1])
        results[f"{context}_first"], results[f"{context}_second"] = first, second
        label = "fork" if context == "fork" else "fresh (full)"
        print(f"  {label:>12} child: cached share of its input — 1st call {first:.1%}, 2nd call {second:.1%}")
    ok = results["fork_second"] >= 0.9
    print(
        f"  forked child, 2nd call: {results['fork_second']:.1%} of its input read from the cache "
        f"→ goal ≥ 90 %: {verdict(ok)}"
    )
    return results


if __name__ == "__main__":
    main()
